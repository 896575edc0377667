// Back-fill from one relay, after start and after every reconnect: the live subscription is
// already active, so anything newer arrives live; this pages backwards from now to `since`.
//
// One REQ per page carries every filter with one `until`: a relay answers the union once (an
// event several filters match comes once). The project's filters overlap a lot (most replies
// match two or three), so a pass, or a cursor, per filter fetched each event up to three times.
// Events are ingested as they arrive, and the next page is
// asked for as soon as this one's EOSE is in, so fetching, verifying and storing overlap; a
// bound on events still being ingested holds the next page back when storage falls behind.
// Duplicates (the overlap, several relays, live and back-fill racing) are harmless: the
// route deduplicates by event id (ingest/route.ts).
//
// Relays cap `limit` (strfry at 500 by default, ours at 1,000) and answer a larger one with
// fewer events, without saying so; "fewer than the limit" is what ends a filter's paging, so a
// page size above the cap would end every filter after its first page and lose the rest. The
// page size is therefore learned first: each filter alone, until one answers a full page (the
// relay honours the page size) or all have answered, and the largest answer is a size the relay
// honours (see learnPageSize).
//
// A second holding a page or more for one filter cannot be paged past by created_at: it is
// split (by author, by kind, by tag; src/backfill/second-walk.ts) and fetched part by part,
// never skipped. What cannot be seen whole leaves the back-fill incomplete, with the reason.

import { nextPage, pageRequest, windowed, type Cursor, type FullSecond } from "../../../src/backfill/page-step.js";
import { SecondWalk, type WalkSpace } from "../../../src/backfill/second-walk.js";
import type { QueryEnd, RelayFilter } from "../../../src/ports.js";
import type { CatchupResult } from "../../../src/daemon-status.js";
import { SliceCollector } from "../ingest/slice-collector.js";

export interface CatchupOptions {
  /** One stored-events query against the relay (RelayGateway.query bound to it). */
  query: (filters: RelayFilter[], onEvent: (ev: unknown) => void) => Promise<QueryEnd>;
  /** The filters without since/until/limit. */
  filters: RelayFilter[];
  /** created_at (secs) to start from; undefined = everything the relay holds. */
  since: number | undefined;
  pageSize: number;
  /** Events handed to `ingest` and not yet settled, at most (before the next page is asked for). */
  maxInFlight: number;
  /**
   * Takes one event in. During the pages `again` is false, and resolving true asks for the event
   * to be taken in once more after the last page (a reply met before its conversation's root:
   * pages run newest first); that second time `again` is true.
   */
  ingest: (ev: unknown, again: boolean) => Promise<boolean>;
  /**
   * The events of a page read in one turn, taken in together (InboundRoute.fromRelayMany); without
   * it each goes through `ingest`. `done(i, retry)` once per event, `retry` as `ingest`'s answer.
   */
  ingestMany?: (evs: unknown[], done: (i: number, retry: boolean) => void) => void;
  /** Checked between pages: a stopping daemon ends its back-fill there. */
  stopped?: () => boolean;
  /** How a second holding a page or more is split: who can author what is taken in, which tags to enumerate. */
  space: WalkSpace;
  /** The smallest `limit` cap a relay is taken to have (default MIN_RELAY_CAP; see learnPageSize). */
  minRelayCap?: number;
}

// Relays cap `limit` at a few hundred or more (strfry 500, ours 1,000; NIP-11 `max_limit`s seen
// are 100 to 5,000). An answer below this is taken as all the filter matches, not as a cap.
export const MIN_RELAY_CAP = 100;

export async function catchUp(o: CatchupOptions): Promise<CatchupResult> {
  const result: CatchupResult = { fetched: 0, pages: 0, newest: undefined, complete: false };
  const pending = new Unsettled();
  // By id: a page asks its boundary second again, so one event can come twice.
  const later = new Map<unknown, unknown>();
  const settled = (ev: unknown, retry: boolean) => {
    pending.settled();
    if (retry) later.set((ev as { id?: unknown } | null)?.id ?? ev, ev);
  };
  const { ingestMany } = o;
  const slices = ingestMany && new SliceCollector<unknown>((evs) => ingestMany(evs, (i, retry) => settled(evs[i], retry)));
  const track = (ev: unknown) => {
    pending.add();
    if (slices) slices.add(ev);
    else o.ingest(ev, false).then((retry) => settled(ev, retry), () => settled(ev, false));
  };
  // Ids handed to ingest by the previous page (or the probes): the next page asks that page's
  // boundary second again (and the first page repeats the probes), so a copy is expected and
  // skipped here. Only one page back is kept: memory stays bounded by the page size.
  let previous = new Set<unknown>();
  let current = new Set<unknown>();
  const turnPage = () => {
    previous = current;
    current = new Set();
  };
  // One REQ, once storage has caught up enough: its events are ingested as they come and
  // counted once it ends.
  const ask = async (filters: RelayFilter[]): Promise<{ page: unknown[]; end: QueryEnd }> => {
    await pending.atMost(o.maxInFlight);
    const page: unknown[] = [];
    const end = await o.query(filters, (ev) => {
      page.push(ev);
      const id = (ev as { id?: unknown } | null)?.id;
      if (typeof id === "string" && (previous.has(id) || current.has(id))) return;
      current.add(id);
      track(ev);
    });
    result.pages++;
    result.fetched += page.length;
    const { newest } = timeRange(page);
    if (newest !== undefined) result.newest = Math.max(result.newest ?? 0, newest);
    return { page, end };
  };
  // The full seconds of a page, split and fetched part by part; the reasons of those that could
  // not be seen whole, or `ended` if a query ended early (that ends the back-fill like a page's
  // would). The parts of every full second go into shared REQs, those of one author and kind
  // side by side: the filters overlap, and a relay sends an event once per REQ.
  const drain = async (fulls: FullSecond[], sample: unknown[], limit: number): Promise<{ gaps: string[]; ended?: string }> => {
    const walks = fulls.map((f) => new SecondWalk(f.filter, f.second, limit, o.space, sample));
    for (;;) {
      const parts = walks.flatMap((walk) => walk.next(Number.MAX_SAFE_INTEGER).map((filter) => ({ walk, filter, key: partKey(filter) })));
      if (parts.length === 0) break;
      parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (let i = 0; i < parts.length; i += FILTERS_PER_REQ) {
        if (o.stopped?.()) return { gaps: [], ended: "stopped" };
        const chunk = parts.slice(i, i + FILTERS_PER_REQ);
        const { page, end } = await ask(chunk.map((p) => p.filter));
        if (!end.complete) return { gaps: [], ended: end.reason ?? "query ended early" };
        for (const walk of walks) {
          const mine = chunk.filter((p) => p.walk === walk).map((p) => p.filter);
          if (mine.length > 0) walk.answer(mine, page);
        }
      }
    }
    return { gaps: walks.flatMap((w) => { const v = w.verdict(); return v.complete ? [] : [v.reason]; }) };
  };
  try {
    const start = await learnPageSize(o, ask);
    if ("reason" in start) return { ...result, reason: start.reason };
    turnPage();
    const { limit } = start;
    let { cursors, until } = start;
    const gaps: string[] = [];
    while (cursors.length > 0) {
      if (o.stopped?.()) return { ...result, reason: "stopped" };
      const paged = pageRequest(cursors, o.since, until, limit);
      const { page, end } = await ask(paged);
      turnPage();
      if (!end.complete) return { ...result, reason: end.reason ?? "query ended early" };
      const next = nextPage(cursors, paged, page, limit, o.since);
      if (next.full.length > 0) {
        const drained = await drain(next.full, page, limit);
        if (drained.ended) return { ...result, reason: drained.ended };
        gaps.push(...drained.gaps);
      }
      ({ cursors, until } = next);
    }
    await pending.atMost(0);
    // Oldest first, as they were published (the route keeps each conversation's order).
    await Promise.all([...later.values()].reverse().map((ev) => o.ingest(ev, true).catch(() => false)));
    if (o.stopped?.()) return { ...result, reason: "stopped" };
    return gaps.length > 0 ? { ...result, reason: gaps.join("; ") } : { ...result, complete: true };
  } finally {
    await pending.atMost(0);
  }
}

/** Events handed to ingest and not settled yet, and who waits for them to be few enough. */
class Unsettled {
  private count = 0;
  private waiters: { max: number; resolve: () => void }[] = [];

  add(): void {
    this.count++;
  }

  settled(): void {
    this.count--;
    if (this.waiters.length > 0) this.waiters = this.waiters.filter((w) => (this.count <= w.max ? (w.resolve(), false) : true));
  }

  /** Resolves once at most `max` are unsettled. */
  atMost(max: number): Promise<void> {
    if (this.count <= max) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ max, resolve }));
  }
}

// The parts of a split second asked in one REQ at most: relays bound the filters of a REQ.
const FILTERS_PER_REQ = 8;

/** Parts with one author and kind sort together (and so share a REQ). */
const partKey = (f: RelayFilter) => `${f.authors?.join(",") ?? ""}|${f.kinds?.join(",") ?? ""}`;

interface Start {
  /** The page size to ask for: one the relay honours. */
  limit: number;
  /** The filters still to page, from `until` down. */
  cursors: Cursor[];
  until: number | undefined;
}

/**
 * A page size the relay honours, and where paging goes on from. A relay answers a filter with
 * min(limit, its cap, what it holds) events. If some filter alone gets a full page, the relay
 * honours `o.pageSize` and every filter is paged from the top. Otherwise every filter has been
 * asked alone, and the largest answer is at most the cap, so that size is honoured: a filter
 * that got less is done (it got all it matches), and those that got that many were each
 * answered down to their oldest second, from where they go on. When the largest answer is
 * below any cap a relay has (MIN_RELAY_CAP), every filter got all it matches and nothing is
 * left to page: taken for a cap, a small answer made every second look full (one event in the
 * overlap window was "a full page" of one). The events of these answers are taken in like any
 * page's. Stops early (with the reason) like a page would.
 */
async function learnPageSize(
  o: CatchupOptions, ask: (filters: RelayFilter[]) => Promise<{ page: unknown[]; end: QueryEnd }>,
): Promise<Start | { reason: string }> {
  const answers: { filter: RelayFilter; count: number; oldest: number | undefined }[] = [];
  for (const filter of o.filters) {
    if (o.stopped?.()) return { reason: "stopped" };
    const { page, end } = await ask([windowed(filter, o.since, undefined, o.pageSize)]);
    if (!end.complete) return { reason: end.reason ?? "query ended early" };
    if (page.length >= o.pageSize) return { limit: o.pageSize, cursors: o.filters.map((f) => ({ filter: f })), until: undefined };
    answers.push({ filter, count: page.length, oldest: timeRange(page).oldest });
  }
  const limit = Math.max(0, ...answers.map((a) => a.count));
  const open = limit < (o.minRelayCap ?? MIN_RELAY_CAP) ? [] : answers.filter((a) => a.count === limit);
  const oldest = open.map((a) => a.oldest);
  // An answer without a single valid timestamp gives no cursor: those filters go on from the top.
  const until = open.length === 0 || oldest.includes(undefined) ? undefined : Math.max(...(oldest as number[]));
  return { limit, cursors: open.map((a) => ({ filter: a.filter })), until };
}

/** Newest and oldest created_at of a page. Events are not checked yet: one that is no timestamp counts for nothing. */
function timeRange(page: unknown[]): { newest: number | undefined; oldest: number | undefined } {
  let newest: number | undefined;
  let oldest: number | undefined;
  for (const ev of page) {
    const t = (ev as { created_at?: unknown } | null)?.created_at;
    if (typeof t !== "number" || !Number.isSafeInteger(t) || t < 0) continue;
    if (newest === undefined || t > newest) newest = t;
    if (oldest === undefined || t < oldest) oldest = t;
  }
  return { newest, oldest };
}
