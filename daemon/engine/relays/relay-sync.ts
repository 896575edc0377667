// Keeps the daemon in step with its relays: the live subscription first, then a back-fill from
// the high-water mark minus an overlap, again after every reconnect, and again on a schedule
// for every relay whose last back-fill was incomplete or that delivered live events the log
// refused (retryDue, run by the daemon's backfill-retry loop with backoff). High-water marks are
// per relay (the newest created_at each has delivered) and are flushed to the index
// periodically, but never while a back-fill runs, and never for a relay that is not synced: a
// crash then, or an incomplete back-fill, must not let the next one skip a range.

import { backfillSince, settleBackfill } from "../../../src/backfill/completeness.js";
import { authorsOf, projectFilters, stopFilter, type ProjectAudience } from "../../../src/backfill/project-filters.js";
import type { WalkSpace } from "../../../src/backfill/second-walk.js";
import { KIND } from "../../../src/kinds.js";
import type { RelayFilter, RelayGateway, RelaySubscription } from "../../../src/ports.js";
import type { NostrEvent } from "../../../src/types.js";
import { catchUp } from "./catchup.js";
import type { IngestOutcome } from "../ingest/checks.js";
import type { SliceItem } from "../ingest/route.js";
import { SliceCollector } from "../ingest/slice-collector.js";
import type { CatchupResult, RelayBackfillState } from "../../../src/daemon-status.js";

export interface HighWaterStore {
  highWaterMarks(): Map<string, number>;
  /** Moves marks forward only. May be written a moment later: a mark read meanwhile is older, never newer. */
  setHighWaters(marks: readonly (readonly [relay: string, createdAt: number])[]): void;
}

export interface RelaySyncDeps {
  gateway: RelayGateway & { onReconnect?(fn: (url: string) => void): () => void };
  relays: readonly string[];
  /** The key a relay's high-water mark is stored under (stable across restarts). */
  markKey: (url: string) => string;
  coordinate: string;
  /** The project's agents: replies p-tagging them are ours even without an `a` tag. */
  agentPubkeys: readonly string[];
  /** Owner and whitelisted users: replies in threads they rooted (uppercase P) may be ours. */
  userPubkeys: readonly string[];
  marks: HighWaterStore;
  overlapSeconds: number;
  /** `bulk`: a back-fill's event, that nobody waits for (see IngestOptions.bulk). */
  ingest: (ev: NostrEvent, relay: string | undefined, quiet: boolean, bulk: boolean) => Promise<IngestOutcome>;
  /**
   * Events read in one turn (live, or a back-fill's query), taken in together
   * (InboundRoute.fromRelayMany); without it each goes through `ingest`. `outcome` and `failed`
   * are told by each event's index.
   */
  ingestMany?: (items: readonly SliceItem[], outcome: (i: number, o: IngestOutcome) => void, failed: (i: number, err: unknown) => void) => void;
  onCatchup?: (r: CatchupResult & { quiet: boolean; ms: number }) => void;
  /** A relay's back-fill became incomplete (said once until it completes again). */
  onIncomplete?: (url: string, reason: string) => void;
  /** Writes work again for a relay that had live events refused: try its back-fill soon. */
  retrySoon?: () => void;
  onError?: (err: unknown) => void;
  now: () => number;
  /** Stop requests (kind 24134) from the live subscription: live only, never back-filled (they are ephemeral). */
  stops?: (ev: NostrEvent, relay: string) => void;
  /** Live events someone waits on (src/trigger-hint.ts), handed on ahead of the others read before them. */
  urgent?: (ev: NostrEvent) => boolean;
}

/** A live event on its way into a slice. */
interface LiveItem extends SliceItem {
  raw: NostrEvent;
  relay: string;
}

/** A back-fill still incomplete after a retry (the retry loop backs off on it). */
export class BackfillIncompleteError extends Error {
  override name = "BackfillIncompleteError";
}

// How long the first back-fill waits for the live subscription to be active (EOSE) before it
// starts anyway (a relay that never answers must not hold the back-fill of the others).
const LIVE_WAIT_MS = 5_000;
export const PAGE_SIZE = 1_000;
// Events of a back-fill being verified and stored at once, before the next page is asked for.
// Eight pages: a page's events wait for their checks, their flush (~300 ms under a back-fill)
// and their index batch (and waited at a gate, since removed: route.ts), so with 3,000 the next
// page was often asked only once the pipeline had nearly drained, and it sat idle while the
// relay answered.
// Measured (quick bench, catch-up of 10,000 events, this 2-core machine): 3,750 / 3,611 / 3,446
// ev/s with 3,000 against 4,228 / 3,855 / 4,004 with 8,000; the daemon's peak RSS in the
// catch-up ~400 MB with each bound (398-420 MB, 3,000 to 20,000).
const MAX_IN_FLIGHT = 8_000;
const QUERY_TIMEOUT_MS = 15_000;

export class RelaySync {
  private sub: RelaySubscription | undefined;
  private offReconnect: (() => void) | undefined;
  private readonly pendingMarks = new Map<string, number>();
  /** Relays (mark keys) whose last back-fill reached its start: only their marks may move. */
  private readonly synced = new Set<string>();
  /** Relays (urls) a back-fill is asked for, and not started yet. */
  private readonly wanted = new Set<string>();
  private readonly states = new Map<string, RelayBackfillState>();
  /** Per relay (url): live events it delivered that could not be stored: the oldest created_at, how many. */
  private readonly refused = new Map<string, { oldest: number; count: number; woken: boolean }>();
  private catchingUp_: Promise<void> | undefined;
  private first: Promise<void> | undefined;
  private stopped = false;
  /** During a first sync: events created before this second are history (no agent runs). */
  private historyBefore: number | undefined;
  lastCatchup: (CatchupResult & { quiet: boolean; ms: number; at: number; relays: Record<string, CatchupResult> }) | undefined;

  constructor(private readonly d: RelaySyncDeps) {}

  private get audience() {
    return { coordinate: this.d.coordinate, agents: this.d.agentPubkeys, users: this.d.userPubkeys };
  }

  /** What is asked for, live and in back-fills: the project's events by its people (src/backfill/project-filters.ts). */
  filters(): RelayFilter[] {
    return projectFilters(this.audience);
  }

  /**
   * Live first (limit 0: nothing stored), then, once the relays have acknowledged it, the
   * back-fill in the background: the daemon serves (and takes new events) while it catches up,
   * and nothing published between the back-fill's queries and the live REQ falls in a gap.
   */
  start(): void {
    const marks = this.d.marks.highWaterMarks();
    // A first sync takes history in quietly (no agent runs on old events); a live event older
    // than this moment is history as well.
    if (!this.d.relays.some((r) => marks.has(this.d.markKey(r)))) this.historyBefore = Math.floor(this.d.now() / 1000);
    const live = [...this.filters(), ...(this.d.stops ? [stopFilter(this.audience)] : [])];
    const { ingestMany } = this.d;
    const slices = ingestMany && new SliceCollector<LiveItem>((items) => ingestMany(
      items, (i, o) => this.noteDelivered(o, items[i]!.raw, items[i]!.relay), (i, err) => this.noteRefused(items[i]!.raw, items[i]!.relay, err),
    ));
    const sub = this.d.gateway.subscribe(live.map((f) => ({ ...f, limit: 0 })), (ev, relay) => {
      if (ev.kind === KIND.STOP) return this.d.stops?.(ev, relay);
      const quiet = this.historyBefore !== undefined && ev.created_at < this.historyBefore;
      // An urgent one too: the route sends it on alone, in its own lane, but takes its place in
      // its conversation's line with the others, in the order they came.
      if (slices) return slices.add({ raw: ev, relay, quiet });
      void this.d.ingest(ev, relay, quiet, false).then((o) => this.noteDelivered(o, ev, relay), (err: unknown) => this.noteRefused(ev, relay, err));
    }, (ev) => ev.kind === KIND.STOP || this.d.urgent?.(ev) === true);
    this.sub = sub;
    this.offReconnect = this.d.gateway.onReconnect?.((url) => {
      // The gateway has re-sent the live REQ on the new connection: back-fill once it is active.
      void sub.active(LIVE_WAIT_MS, url).then(() => this.backfill([url])).catch(this.d.onError);
    });
    this.first = sub.active(LIVE_WAIT_MS).then(() => this.backfill());
    this.first.catch(this.d.onError);
  }

  /** Resolves when the first back-fill has run and no other is running (without asking for one). */
  async idle(): Promise<void> {
    await this.first?.catch(() => undefined);
    while (this.catchingUp_) await this.catchingUp_.catch(() => undefined);
  }

  /** True while a back-fill runs. */
  get catchingUp(): boolean {
    return this.catchingUp_ !== undefined;
  }

  /** Closes the subscription, ends a running back-fill at its next page, and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sub?.close();
    this.offReconnect?.();
    await this.catchingUp_?.catch(() => undefined);
    this.flushMarks();
  }

  /** Writes the marks gathered since the last flush of relays that are synced, unless a back-fill runs. */
  flushMarks(): void {
    if (this.catchingUp_) return;
    const due: [string, number][] = [];
    for (const [key, at] of this.pendingMarks) {
      if (!this.synced.has(key)) continue;
      due.push([key, at]);
      this.pendingMarks.delete(key);
    }
    if (due.length > 0) this.d.marks.setHighWaters(due);
  }

  /** Back-fills `relays` (default: all); requests made while one runs collapse into one more run. */
  backfill(relays: readonly string[] = this.d.relays): Promise<void> {
    if (this.stopped) return Promise.resolve();
    for (const url of relays) this.wanted.add(url);
    this.catchingUp_ ??= (async () => {
      while (this.wanted.size > 0 && !this.stopped) {
        const urls = this.d.relays.filter((u) => this.wanted.has(u));
        this.wanted.clear();
        await this.backfillOnce(urls);
      }
    })().finally(() => {
      this.catchingUp_ = undefined;
      this.flushMarks();
    });
    return this.catchingUp_;
  }

  /**
   * Back-fills again every relay whose last back-fill was incomplete or that had live events
   * refused; throws (so the retry loop backs off) while any of them is still not synced.
   */
  async retryDue(): Promise<void> {
    if (this.stopped) return;
    const due = this.d.relays.filter((url) => this.refused.has(url) || this.states.get(url)?.complete === false);
    if (due.length === 0) return;
    // A back-fill already running (a reconnect) is waited for rather than doubled.
    if (this.catchingUp_) await this.catchingUp_.catch(() => undefined);
    else await this.backfill(due);
    if (this.stopped) return;
    const still = this.backfillStates().filter((s) => !s.complete);
    if (still.length > 0) throw new BackfillIncompleteError(still.map((s) => `${s.url}: ${s.reason ?? "incomplete"}`).join("; "));
  }

  /** Each relay's last back-fill, counted incomplete while live events it delivered wait to be stored. */
  backfillStates(): RelayBackfillState[] {
    const out: RelayBackfillState[] = [];
    for (const url of this.d.relays) {
      const state = this.states.get(url);
      const refused = this.refused.get(url);
      if (refused) {
        out.push({
          url, at: state?.at ?? this.d.now(), since: state?.since ?? null, fetched: state?.fetched ?? 0, complete: false,
          reason: `${refused.count} live events could not be stored (oldest created_at ${refused.oldest})${state && !state.complete ? `; ${state.reason}` : ""}`,
        });
      } else if (state) {
        out.push(state);
      }
    }
    return out;
  }

  private async backfillOnce(urls: readonly string[]): Promise<void> {
    const marks = this.d.marks.highWaterMarks();
    const known = this.d.relays.map((r) => marks.get(this.d.markKey(r))).filter((m): m is number => m !== undefined);
    // With no mark at all this project has never synced: take the history in, but quietly.
    // A relay without a mark next to others starts from the oldest mark.
    const quiet = known.length === 0;
    const oldest = quiet ? undefined : Math.min(...known);
    const started = this.d.now();
    const results = await Promise.all(urls.map((url) => this.backfillRelay(url, marks.get(this.d.markKey(url)) ?? oldest, quiet, started)));
    if (results.some((r) => r.complete)) this.historyBefore = undefined;
    this.lastCatchup = {
      ...sumResults(results), quiet, ms: this.d.now() - started, at: this.d.now(),
      relays: Object.fromEntries(urls.map((url, i) => [url, results[i]!])),
    };
    this.d.onCatchup?.(this.lastCatchup);
  }

  private async backfillRelay(url: string, mark: number | undefined, quiet: boolean, started: number): Promise<CatchupResult> {
    const key = this.d.markKey(url);
    // Until this relay's back-fill completes, its mark does not move (a failed one keeps it).
    this.synced.delete(key);
    const refusedBefore = this.refused.get(url)?.count ?? 0;
    const since = backfillSince(mark, this.refused.get(url)?.oldest, this.d.overlapSeconds);
    // Events that could not be taken in (the log failed, a full disk): refused is not missed.
    let failed = 0;
    const { ingestMany } = this.d;
    const result = await catchUp({
      query: (filters, onEvent) => this.d.gateway.query(url, filters, onEvent, QUERY_TIMEOUT_MS),
      filters: this.filters(),
      since, pageSize: PAGE_SIZE, maxInFlight: MAX_IN_FLIGHT, space: backfillSpace(this.audience),
      // Quiet is for history: a message written since the start sets its agent to work even when
      // the back-fill's copy comes before the live one (as the live subscription's rule has it).
      ingest: (ev, again) => this.d.ingest(ev as NostrEvent, url, quiet && this.isHistory(ev as NostrEvent, started), !again).then(
        (o) => o.status === "deferred",
        (err: unknown) => (failed++, this.d.onError?.(err), false),
      ),
      ...(ingestMany ? {
        ingestMany: (evs: unknown[], done: (i: number, retry: boolean) => void) => ingestMany(
          evs.map((ev) => ({ raw: ev, relay: url, quiet: quiet && this.isHistory(ev as NostrEvent, started), bulk: true })),
          (i, o) => done(i, o.status === "deferred"),
          (i, err) => (failed++, this.d.onError?.(err), done(i, false)),
        ),
      } : {}),
      stopped: () => this.stopped,
    });
    // A back-fill some of whose events failed did not take the range in: its mark stays, so
    // the next back-fill (the retry loop's) asks for them again. Moved to the newest event
    // fetched, a disk full for longer than the overlap lost them for good.
    const refusedMeanwhile = (this.refused.get(url)?.count ?? 0) - refusedBefore;
    const settled = settleBackfill(result, failed, refusedMeanwhile);
    const out: CatchupResult = settled.complete ? { ...result, complete: true } : { ...result, complete: false, reason: settled.reason };
    if (out.complete) {
      this.refused.delete(url);
      // The mark is the newest created_at taken in (docs/architecture.md). A sync that found nothing
      // marks when it began instead: else the next start would take it for a first sync.
      this.raise(url, result.newest ?? Math.floor(started / 1000));
      this.synced.add(key);
    }
    this.record(url, out, since);
    return out;
  }

  /** Whether a first sync takes `ev` quietly: written before the daemon started (or this back-fill did). */
  private isHistory(ev: NostrEvent, started: number): boolean {
    const createdAt = (ev as { created_at?: unknown }).created_at;
    return typeof createdAt !== "number" || createdAt < (this.historyBefore ?? Math.floor(started / 1000));
  }

  private record(url: string, r: CatchupResult, since: number | undefined): void {
    const before = this.states.get(url);
    this.states.set(url, {
      url, complete: r.complete, ...(r.reason !== undefined ? { reason: r.reason } : {}), at: this.d.now(), since: since ?? null, fetched: r.fetched,
    });
    // Said once per episode (the status keeps the current reason): a relay retried every few
    // minutes for hours must not push every other problem out of the list. Not when stopping.
    if (!r.complete && (before?.complete ?? true) && !this.stopped) this.d.onIncomplete?.(url, r.reason ?? "incomplete");
  }

  private noteDelivered(o: IngestOutcome, ev: NostrEvent, relay: string): void {
    if (o.status !== "accepted" && o.status !== "duplicate") return;
    this.raise(relay, ev.created_at);
    const refused = this.refused.get(relay);
    // Writes work again: the refused ones need not wait for the next scheduled try.
    if (o.status === "accepted" && refused && !refused.woken) {
      refused.woken = true;
      this.d.retrySoon?.();
    }
  }

  /** A live event the log refused: the relay is not synced until a back-fill from before it has completed. */
  private noteRefused(ev: NostrEvent, relay: string, err: unknown): void {
    this.d.onError?.(err);
    const r = this.refused.get(relay);
    if (r) {
      r.oldest = Math.min(r.oldest, ev.created_at);
      r.count++;
      r.woken = false;
    } else {
      this.refused.set(relay, { oldest: ev.created_at, count: 1, woken: false });
    }
    this.synced.delete(this.d.markKey(relay));
  }

  private raise(relay: string, createdAt: number): void {
    // A mark is how far the daemon has synced: never past now, whatever a relay (or a client
    // with a wrong clock) put in created_at. A mark in the future would make the next back-fill
    // start there and skip everything published meanwhile.
    const at = Math.min(createdAt, Math.floor(this.d.now() / 1000));
    const key = this.d.markKey(relay);
    if ((this.pendingMarks.get(key) ?? 0) < at) this.pendingMarks.set(key, at);
  }
}

// A root's id is the `E` of its replies: roots seen in a full second are conversations to enumerate.
// Kind 1 replies name their root in a NIP-10 `e`: the roots the notes of that second point to.
const ROOT_KINDS = [KIND.CONVERSATION_ROOT, KIND.TASK];
const ENUMERABLE = [{ tag: "#E" as const, kinds: [KIND.REPLY], idsOf: ROOT_KINDS }, { tag: "#e" as const, kinds: [KIND.TEXT_NOTE] }];

/** How a back-fill splits a second holding a page or more (catchup.ts): by author, then by the conversations it names. */
export function backfillSpace(audience: ProjectAudience): WalkSpace {
  return { authors: authorsOf(audience), enumerable: ENUMERABLE };
}

/** The relays' back-fills as one: counts added up, complete only if every one is. */
function sumResults(results: CatchupResult[]): CatchupResult {
  const reasons = results.map((r) => r.reason).filter((r): r is string => r !== undefined);
  const newest = results.map((r) => r.newest).filter((n): n is number => n !== undefined);
  return {
    fetched: results.reduce((n, r) => n + r.fetched, 0),
    pages: results.reduce((n, r) => n + r.pages, 0),
    newest: newest.length > 0 ? Math.max(...newest) : undefined,
    complete: results.every((r) => r.complete),
    ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
  };
}
