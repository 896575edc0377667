// The daemon's index writer: on the main thread while little is written, on a thread of its own
// (worker-index-writer.ts) while much is. The thread costs ~12 MB of resident memory for as long
// as it runs (measured: a daemon at rest is ~85 MB, its goal 100), and a heartbeat or a Director's
// message is written in well under a millisecond here. A burst (a back-fill, a flood of live
// events) makes batches of hundreds of records that would take the main thread's time from the
// fold and the log: the first such batch starts the thread, and it stops again once nothing has
// been sent to it for IDLE_MS.
//
// One writer at a time: a batch goes inline only while no thread runs, and a thread is retired
// only with nothing in flight, so batches are committed in the order they were handed over.

import { recordCount } from "../../src/index-item.js";
import type { IndexApplier, IndexItem } from "../../src/ports.js";
import { WorkerIndexWriter } from "./worker-index-writer.js";

/** What the writer needs of the main thread's connection to the index (SqliteIndex). */
export interface InlineIndex {
  readonly path: string;
  applyBatch(items: readonly IndexItem[]): void;
  setHighWater(relay: string, createdAt: number): unknown;
}

export interface OnDemandOptions {
  /** A batch with at least this many records starts the thread. */
  startAtRecords?: number;
  /** Inline applies taking more than this many ms within one second start the thread. */
  inlineBudgetMs?: number;
  /** The thread stops after this long with nothing sent to it. */
  idleMs?: number;
}

const START_AT_RECORDS = 64;
const INLINE_BUDGET_MS = 50;
const IDLE_MS = 30_000;

export class OnDemandIndexWriter implements IndexApplier {
  private readonly thread: WorkerIndexWriter;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Inline apply time in the current one-second window. */
  private windowStart = 0;
  private windowMs = 0;
  private readonly startAt: number;
  private readonly budgetMs: number;
  private readonly idleMs: number;
  /** How many times the thread was started (tests). */
  threadsStarted = 0;

  /** Throws WorkerScriptError when the thread's compiled script is missing or stale. */
  constructor(private readonly index: InlineIndex, opts: OnDemandOptions = {}) {
    this.startAt = opts.startAtRecords ?? START_AT_RECORDS;
    this.budgetMs = opts.inlineBudgetMs ?? INLINE_BUDGET_MS;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.thread = new WorkerIndexWriter(index.path);
  }

  /** While on the main thread, applies are synchronous: the feeder then spaces batches out. */
  get blocking(): boolean {
    return !this.thread.running;
  }

  get threadRunning(): boolean {
    return this.thread.running;
  }

  apply(items: readonly IndexItem[]): Promise<void> | void {
    if (!this.thread.running && !this.thread.closed && !this.wantsThread(items)) return this.inline(items);
    if (!this.thread.running && !this.thread.closed) {
      this.threadsStarted++;
      this.windowMs = 0;
    }
    return this.track(this.thread.apply(items));
  }

  /**
   * Holds a batch on the index's thread (IndexApplier.hold); declined (undefined) when the
   * thread is closed, or does not run and the batch is too small to start it.
   */
  hold(items: readonly IndexItem[]): Promise<void> | undefined {
    if (this.thread.closed) return undefined;
    if (!this.thread.running) {
      if (recordCount(items) < this.startAt) return undefined;
      this.threadsStarted++;
      this.windowMs = 0;
    }
    return this.track(this.thread.hold(items));
  }

  commit(): Promise<void> {
    return this.track(this.thread.commit());
  }

  rollback(): Promise<void> {
    return this.track(this.thread.rollback());
  }

  /**
   * Raises relays' high-water marks after the batches handed over before. Written here when no
   * thread runs, and after close (the last marks, at stop).
   */
  setHighWaters(marks: readonly (readonly [relay: string, createdAt: number])[]): Promise<void> {
    if (this.thread.running && !this.thread.closed) return this.track(this.thread.setHighWaters(marks));
    try {
      for (const [relay, at] of marks) this.index.setHighWater(relay, at);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Idempotent; waits for the batch in flight, then stops the thread. */
  close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    return this.thread.close();
  }

  private wantsThread(items: readonly IndexItem[]): boolean {
    if (recordCount(items) >= this.startAt) return true;
    const now = performance.now();
    if (now - this.windowStart >= 1_000) {
      this.windowStart = now;
      this.windowMs = 0;
    }
    return this.windowMs > this.budgetMs;
  }

  private inline(items: readonly IndexItem[]): void {
    const start = performance.now();
    try {
      this.index.applyBatch(items);
    } finally {
      this.windowMs += performance.now() - start;
    }
  }

  // The idle timer runs only while nothing is in flight: each send clears it.
  private track(sent: Promise<void>): Promise<void> {
    this.inFlight++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const done = () => {
      if (--this.inFlight > 0 || this.thread.closed) return;
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        this.thread.retire();
      }, this.idleMs);
      this.idleTimer.unref();
    };
    sent.then(done, done);
    return sent;
  }
}
