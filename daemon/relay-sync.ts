// Keeps the daemon in step with its relays: the live subscription first, then a back-fill from
// the high-water mark minus an overlap, again after every reconnect. High-water marks are per
// relay (the newest created_at each has delivered) and are flushed to the index periodically,
// but never while a back-fill runs: a live event is newer than the range still being filled,
// and a crash then must not let the next start skip that range.

import { KIND } from "../src/kinds.js";
import type { RelayFilter, RelayGateway, RelaySubscription } from "../src/ports.js";
import type { NostrEvent } from "../src/types.js";
import { catchUp, type CatchupResult } from "./catchup.js";
import type { IngestOutcome } from "./ingest/pipeline.js";

export interface HighWaterStore {
  highWaterMarks(): Map<string, number>;
  setHighWater(relay: string, createdAt: number): boolean;
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
  onCatchup?: (r: CatchupResult & { quiet: boolean; ms: number }) => void;
  onError?: (err: unknown) => void;
  now: () => number;
}

export const CONVERSATION_KINDS = [KIND.CONVERSATION_ROOT, KIND.REPLY, KIND.TASK];

// How long the first back-fill waits for the live subscription to be active (EOSE) before it
// starts anyway (a relay that never answers must not hold the back-fill of the others).
const LIVE_WAIT_MS = 5_000;
const PAGE_SIZE = 1_000;
// Events of a back-fill being verified and stored at once: enough to keep both cores busy.
const MAX_IN_FLIGHT = 3_000;
const QUERY_TIMEOUT_MS = 15_000;

export class RelaySync {
  private sub: RelaySubscription | undefined;
  private offReconnect: (() => void) | undefined;
  private readonly pendingMarks = new Map<string, number>();
  /** Relays (mark keys) whose last back-fill reached its start: only their marks may move. */
  private readonly synced = new Set<string>();
  private catchingUp_: Promise<void> | undefined;
  private first: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** During a first sync: events created before this second are history (no agent runs). */
  private historyBefore: number | undefined;
  lastCatchup: (CatchupResult & { quiet: boolean; ms: number; at: number; relays: Record<string, CatchupResult> }) | undefined;

  constructor(private readonly d: RelaySyncDeps) {}

  /**
   * Events tagged with the project, plus replies that name an agent or a thread one of our users
   * rooted: NDK's reply() does not carry the `a` tag over. What is not in a known conversation is
   * ignored by the pipeline.
   */
  filters(): RelayFilter[] {
    return [
      { kinds: CONVERSATION_KINDS, "#a": [this.d.coordinate] },
      { kinds: [KIND.REPLY], "#p": [...this.d.agentPubkeys] },
      { kinds: [KIND.REPLY], "#P": [...this.d.userPubkeys] },
    ];
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
    const sub = this.d.gateway.subscribe(this.filters().map((f) => ({ ...f, limit: 0 })), (ev, relay) => {
      const quiet = this.historyBefore !== undefined && ev.created_at < this.historyBefore;
      void this.d.ingest(ev, relay, quiet, false).then((o) => this.noteDelivered(o, ev, relay), this.d.onError);
    });
    this.sub = sub;
    this.offReconnect = this.d.gateway.onReconnect?.((url) => {
      // The gateway has re-sent the live REQ on the new connection: back-fill once it is active.
      void sub.active(LIVE_WAIT_MS, url).then(() => this.backfill()).catch(this.d.onError);
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
    for (const [key, at] of this.pendingMarks) {
      if (!this.synced.has(key)) continue;
      this.d.marks.setHighWater(key, at);
      this.pendingMarks.delete(key);
    }
  }

  /** Back-fill; concurrent requests (several reconnects) collapse into one more run. */
  backfill(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.catchingUp_) {
      this.again = true;
      return this.catchingUp_;
    }
    this.catchingUp_ = (async () => {
      do {
        this.again = false;
        await this.backfillOnce();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.catchingUp_ = undefined;
      this.flushMarks();
    });
    return this.catchingUp_;
  }

  private async backfillOnce(): Promise<void> {
    const marks = this.d.marks.highWaterMarks();
    const keys = this.d.relays.map((r) => this.d.markKey(r));
    const known = keys.map((k) => marks.get(k)).filter((m): m is number => m !== undefined);
    // With no mark at all this project has never synced: take the history in, but quietly.
    // A relay without a mark next to others starts from the oldest mark.
    const quiet = known.length === 0;
    const oldest = quiet ? undefined : Math.min(...known);
    const started = this.d.now();
    const results = await Promise.all(this.d.relays.map(async (url, i) => {
      const mark = marks.get(keys[i]!) ?? oldest;
      // Until this relay's back-fill completes, its mark does not move (a failed one keeps it).
      this.synced.delete(keys[i]!);
      // Events that could not be taken in (the log failed, a full disk): refused is not missed.
      let failed = 0;
      const result = await catchUp({
        query: (filters, onEvent) => this.d.gateway.query(url, filters, onEvent, QUERY_TIMEOUT_MS),
        filters: this.filters(),
        since: mark === undefined ? undefined : Math.max(0, mark - this.d.overlapSeconds),
        pageSize: PAGE_SIZE, maxInFlight: MAX_IN_FLIGHT,
        ingest: (ev, again) => this.d.ingest(ev as NostrEvent, url, quiet, !again).then(
          (o) => o.status === "deferred",
          (err: unknown) => (failed++, this.d.onError?.(err), false),
        ),
        stopped: () => this.stopped,
      });
      // A back-fill some of whose events failed did not take the range in: its mark stays, so
      // the next back-fill (the next start or reconnect) asks for them again. Moved to the
      // newest event fetched, a disk full for longer than the overlap lost them for good.
      if (failed > 0 && result.complete) Object.assign(result, { complete: false, reason: `${failed} events could not be stored` });
      if (result.complete) {
        // The mark is the newest created_at taken in (DESIGN.md §5). A sync that found nothing
        // marks when it began instead: else the next start would take it for a first sync.
        this.raise(url, result.newest ?? Math.floor(started / 1000));
        this.synced.add(keys[i]!);
      }
      return result;
    }));
    if (results.some((r) => r.complete)) this.historyBefore = undefined;
    this.lastCatchup = {
      ...sumResults(results), quiet, ms: this.d.now() - started, at: this.d.now(),
      relays: Object.fromEntries(this.d.relays.map((url, i) => [url, results[i]!])),
    };
    this.d.onCatchup?.(this.lastCatchup);
  }

  private noteDelivered(o: IngestOutcome, ev: NostrEvent, relay: string): void {
    if (o.status === "accepted" || o.status === "duplicate") this.raise(relay, ev.created_at);
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

/** The relays' back-fills as one: counts added up, complete only if every one is. */
function sumResults(results: CatchupResult[]): CatchupResult {
  const reasons = results.map((r) => r.reason).filter((r): r is string => r !== undefined);
  const newest = results.map((r) => r.newest).filter((n): n is number => n !== undefined);
  return {
    fetched: results.reduce((n, r) => n + r.fetched, 0),
    pages: results.reduce((n, r) => n + r.pages, 0),
    newest: newest.length > 0 ? Math.max(...newest) : undefined,
    truncated: results.some((r) => r.truncated),
    complete: results.every((r) => r.complete),
    ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
  };
}
