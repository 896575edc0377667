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
// pipeline deduplicates by event id.
//
// Relays cap `limit` (strfry at 500 by default, ours at 1,000) and answer a larger one with
// fewer events, without saying so; "fewer than the limit" is what ends a filter's paging, so a
// page size above the cap would end every filter after its first page and lose the rest. The
// page size is therefore learned first: each filter alone, until one answers a full page (the
// relay honours the page size) or all have answered, and the largest answer is a size the relay
// honours (see learnPageSize).

import { matchFilter, type Filter } from "nostr-tools/filter";
import type { QueryEnd, RelayFilter } from "../src/ports.js";

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
  /** Checked between pages: a stopping daemon ends its back-fill there. */
  stopped?: () => boolean;
}

export interface CatchupResult {
  fetched: number;
  pages: number;
  /** Newest created_at seen, to move the high-water mark. */
  newest: number | undefined;
  /** True when one second held more events than a page, so some may be missing. */
  truncated: boolean;
  /** True when every filter was paged down to `since` (not stopped, no query ended early). */
  complete: boolean;
  /** Why it is not complete. */
  reason?: string;
}

export async function catchUp(o: CatchupOptions): Promise<CatchupResult> {
  const result: CatchupResult = { fetched: 0, pages: 0, newest: undefined, truncated: false, complete: false };
  const pending = new Set<Promise<void>>();
  // By id: a page asks its boundary second again, so one event can come twice.
  const later = new Map<unknown, unknown>();
  const track = (ev: unknown) => {
    const settled: Promise<void> = o.ingest(ev, false).then(
      (retry) => {
        pending.delete(settled);
        if (retry) later.set((ev as { id?: unknown } | null)?.id ?? ev, ev);
      },
      () => void pending.delete(settled),
    );
    pending.add(settled);
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
    while (pending.size > o.maxInFlight) await Promise.race(pending);
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
  try {
    const start = await learnPageSize(o, ask);
    if ("reason" in start) return { ...result, reason: start.reason };
    turnPage();
    const { limit } = start;
    let { active, until } = start;
    while (active.length > 0) {
      if (o.stopped?.()) return { ...result, reason: "stopped" };
      const paged = active.map((f) => pageFilter(f, o.since, until, limit));
      const { page, end } = await ask(paged);
      turnPage();
      if (!end.complete) return { ...result, reason: end.reason ?? "query ended early" };
      const next = nextPage(active, paged, page, until, limit);
      if (next.truncated) result.truncated = true;
      ({ active, until } = next);
    }
    await Promise.all(pending);
    // Oldest first, as they were published (the pipeline keeps each conversation's order).
    await Promise.all([...later.values()].reverse().map((ev) => o.ingest(ev, true).catch(() => false)));
    result.complete = !o.stopped?.();
    if (!result.complete) result.reason = "stopped";
    return result;
  } finally {
    await Promise.all(pending);
  }
}

interface Start {
  /** The page size to ask for: one the relay honours. */
  limit: number;
  /** The filters still to page, from `until` down. */
  active: RelayFilter[];
  until: number | undefined;
}

/**
 * A page size the relay honours, and where paging goes on from. A relay answers a filter with
 * min(limit, its cap, what it holds) events. If some filter alone gets a full page, the relay
 * honours `o.pageSize` and every filter is paged from the top. Otherwise every filter has been
 * asked alone, and the largest answer is at most the cap, so that size is honoured: a filter
 * that got less is done (it got all it matches), and those that got that many were each
 * answered down to their oldest second, from where they go on. The events of these answers are
 * taken in like any page's. Stops early (with the reason) like a page would.
 */
async function learnPageSize(
  o: CatchupOptions, ask: (filters: RelayFilter[]) => Promise<{ page: unknown[]; end: QueryEnd }>,
): Promise<Start | { reason: string }> {
  const answers: { filter: RelayFilter; count: number; oldest: number | undefined }[] = [];
  for (const filter of o.filters) {
    if (o.stopped?.()) return { reason: "stopped" };
    const { page, end } = await ask([pageFilter(filter, o.since, undefined, o.pageSize)]);
    if (!end.complete) return { reason: end.reason ?? "query ended early" };
    if (page.length >= o.pageSize) return { limit: o.pageSize, active: o.filters, until: undefined };
    answers.push({ filter, count: page.length, oldest: timeRange(page).oldest });
  }
  const limit = Math.max(0, ...answers.map((a) => a.count));
  const open = limit === 0 ? [] : answers.filter((a) => a.count === limit);
  const oldest = open.map((a) => a.oldest);
  // An answer without a single valid timestamp gives no cursor: those filters go on from the top.
  const until = open.length === 0 || oldest.includes(undefined) ? undefined : Math.max(...(oldest as number[]));
  return { limit, active: open.map((a) => a.filter), until };
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

function pageFilter(f: RelayFilter, since: number | undefined, until: number | undefined, limit: number): RelayFilter {
  return { ...f, limit, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/**
 * What to ask next. The relay answered each filter with its `limit` newest matches, merged: the
 * page's events that match a filter hold those newest ones (plus older ones other filters
 * brought). A filter with fewer than `limit` matches is done. Every other one was answered down
 * to its limit-th newest second, its boundary; the next page starts at the newest boundary, so
 * no filter skips anything (`until` is inclusive: that second is asked again and its
 * duplicates skipped). A filter whose boundary is the page's own `until` has one second holding
 * a whole page: it cannot be paged past with timestamps and stops there, truncated.
 */
export function nextPage(
  filters: RelayFilter[], paged: RelayFilter[], page: unknown[], until: number | undefined, limit: number,
): { active: RelayFilter[]; until: number | undefined; truncated: boolean } {
  const active: RelayFilter[] = [];
  let next: number | undefined;
  let truncated = false;
  filters.forEach((f, i) => {
    const matched = page.filter((ev) => matches(paged[i]!, ev)).map((ev) => (ev as { created_at: number }).created_at);
    if (matched.length < limit) return;
    const boundary = matched.sort((a, b) => b - a)[limit - 1]!;
    if (boundary === until) {
      truncated = true;
      return;
    }
    active.push(f);
    next = Math.max(next ?? 0, boundary);
  });
  return { active, until: next, truncated };
}
function matches(filter: RelayFilter, ev: unknown): boolean {
  const t = (ev as { created_at?: unknown } | null)?.created_at;
  if (typeof t !== "number" || !Number.isSafeInteger(t)) return false;
  try {
    return matchFilter(filter as Filter, ev as Parameters<typeof matchFilter>[1]);
  } catch {
    return false; // A malformed event matches nothing.
  }
}
