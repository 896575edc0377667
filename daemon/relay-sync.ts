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
  ingest: (ev: NostrEvent, relay: string | undefined, quiet: boolean) => Promise<IngestOutcome>;
  onCatchup?: (r: CatchupResult & { quiet: boolean; ms: number }) => void;
  onError?: (err: unknown) => void;
  now: () => number;
}

export const CONVERSATION_KINDS = [KIND.CONVERSATION_ROOT, KIND.REPLY, KIND.TASK];

export class RelaySync {
  private sub: RelaySubscription | undefined;
  private offReconnect: (() => void) | undefined;
  private readonly pendingMarks = new Map<string, number>();
  private catchingUp_: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private settleTimer: NodeJS.Timeout | undefined;
  private lastBackfillComplete = false;
  /** During a first sync: events created before this second are history (no agent runs). */
  private historyBefore: number | undefined;
  lastCatchup: (CatchupResult & { quiet: boolean; ms: number; at: number }) | undefined;

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
   * Live first (limit 0: nothing stored), then the back-fill in the background: the daemon
   * serves (and takes new events) while it catches up. `backfill()` resolves when it is done.
   */
  start(): void {
    // A first sync takes history in quietly. NDK also hands events fetched by the back-fill to
    // the live subscription, so "live" events older than this moment are history as well.
    const marks = this.d.marks.highWaterMarks();
    if (!this.d.relays.some((r) => marks.has(this.d.markKey(r)))) this.historyBefore = Math.floor(this.d.now() / 1000);
    this.sub = this.d.gateway.subscribe(this.filters().map((f) => ({ ...f, limit: 0 })), (ev, relay) => {
      const quiet = this.historyBefore !== undefined && ev.created_at < this.historyBefore;
      void this.d.ingest(ev, relay, quiet).then((o) => this.noteDelivered(o, ev, relay), this.d.onError);
    });
    this.offReconnect = this.d.gateway.onReconnect?.(() => void this.backfill().catch(this.d.onError));
    void this.backfill().catch(this.d.onError);
    // The REQ reaches the relays asynchronously: what is published before it is active and after
    // the first back-fill's fetch would be missed until the next reconnect. One more back-fill,
    // once the subscription is surely active, closes that gap (duplicates are cheap).
    this.settleTimer = setTimeout(() => void this.backfill().catch(this.d.onError), 3_000);
    this.settleTimer.unref();
  }

  /** Resolves when no back-fill is running (without asking for one). */
  async idle(): Promise<void> {
    while (this.catchingUp_) await this.catchingUp_.catch(() => undefined);
  }

  /** True while a back-fill runs. */
  get catchingUp(): boolean {
    return this.catchingUp_ !== undefined;
  }

  /** Closes the subscription, ends a running back-fill at its next page, and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.settleTimer);
    this.sub?.close();
    this.offReconnect?.();
    await this.catchingUp_?.catch(() => undefined);
    this.flushMarks();
  }

  /** Writes the high-water marks gathered since the last flush, unless a back-fill is running. */
  flushMarks(): void {
    if (this.catchingUp_ || !this.lastBackfillComplete) return;
    for (const [relay, at] of this.pendingMarks) this.d.marks.setHighWater(relay, at);
    this.pendingMarks.clear();
  }

  /** Back-fill; concurrent requests (several reconnects) collapse into one more run. */
  backfill(): Promise<void> {
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
    // Until this one completes, no mark moves (a failed back-fill keeps them where they were).
    this.lastBackfillComplete = false;
    const marks = this.d.marks.highWaterMarks();
    const known = this.d.relays.map((r) => marks.get(this.d.markKey(r))).filter((m): m is number => m !== undefined);
    // With no mark at all this project has never synced: take the history in, but quietly
    // (no agent runs on old events). A relay without a mark next to others gets the oldest mark.
    const quiet = known.length === 0;
    const since = quiet ? undefined : Math.max(0, Math.min(...known) - this.d.overlapSeconds);
    const started = this.d.now();
    const result = await catchUp({
      gateway: this.d.gateway, filters: this.filters(), since, pageSize: 500, fetchTimeoutMs: 15_000,
      ingest: (ev) => this.d.ingest(ev, undefined, quiet),
      stopped: () => this.stopped,
    });
    this.lastBackfillComplete = result.complete;
    if (result.complete) {
      // The mark is the newest created_at taken in (DESIGN.md §5). A sync that found nothing
      // marks when it began instead: else the next start would take it for a first sync.
      const upTo = result.newest ?? Math.floor(started / 1000);
      for (const r of this.d.relays) this.raise(r, upTo);
      this.historyBefore = undefined;
    }
    this.lastCatchup = { ...result, quiet, ms: this.d.now() - started, at: this.d.now() };
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

/** The root and thread of a conversation we have only heard of through a reply. */
export async function fetchThread(gateway: RelayGateway, rootId: string, ingest: (ev: NostrEvent) => Promise<unknown>): Promise<number> {
  const events = await gateway.fetch([{ ids: [rootId] }, { kinds: [KIND.REPLY], "#E": [rootId] }], 10_000);
  await Promise.all(events.map(ingest));
  return events.length;
}
