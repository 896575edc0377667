// One place in the VerifierPool: a worker thread, the batches it holds, and its replacement
// when it dies. A slot whose workers keep dying without finishing anything is given up on, so
// a broken build or a poison input cannot spin forever.
//
// A worker is stopped by asking it to end itself between two batches, not by terminating it:
// bcrypto's native code asserts that each N-API call it makes succeeds, and they fail once a
// thread's termination has begun, so a worker terminated while loading bcrypto or inside a check
// aborts the whole process (exit 134). Pools closed ~70 ms after their start did, here, about
// once in 250 closes, and CI lost a test file that way. terminate() is kept for a worker that
// has not ended itself after STOP_GRACE_MS (stuck: a hang is worse than that risk).

import { Worker } from "node:worker_threads";
import { mapPacked } from "../../src/map-packed.js";
import type { NostrEvent } from "../../src/types.js";
import { jsonAt, type EventJsonSink } from "./event-json.js";
import type { VerifierBackend } from "./verifier-choice.js";
import {
  SHARED_CHECKING,
  SHARED_SLOTS,
  SHARED_STOP,
  verdictOf,
  type PoolMessage,
  type Verdict,
  type VerifyResponse,
  type VerifyWorkerData,
  type WorkerMessage,
} from "./verify-protocol.js";

/** Events sent to a worker as one message, and how to answer whoever is waiting on them. */
export interface Batch {
  readonly events: NostrEvent[];
  /** Tries charged: each send, less those whose worker died before it began this batch. */
  attempts: number;
  settle(verdicts: Verdict[]): void;
  fail(err: Error): void;
}

/** Called when the slot's worker died holding `orphans` (the slot has already replaced it). */
export type OnCrash = (orphans: Batch[], cause: Error) => void;
/** Called when a worker (a replacement too) has loaded its verifier and takes work. */
export type OnWorkerReady = (worker: Worker, slot: number) => void;

const MAX_CRASHES_IN_A_ROW = 3;
// How long stop() waits for a worker to end itself: its load takes ~0.1 s here, a batch ~10 ms.
const STOP_GRACE_MS = 10_000;

export class WorkerSlot {
  private worker!: Worker;
  /** Settles when the current worker has exited. */
  private gone!: Promise<void>;
  /** The stop flag and the batch being checked, shared with the current worker (verify-protocol.ts). */
  private readonly shared = new Int32Array(new SharedArrayBuffer(SHARED_SLOTS * 4));
  private readonly inflight = new Map<number, Batch>();
  private nextBatch = 0;
  private events = 0;
  private crashesInARow = 0;
  private stopping = false;
  private gaveUp = false;
  /** Workers of this slot that died (each replaced, until the slot gives up). */
  crashes = 0;

  constructor(
    readonly index: number,
    private readonly file: URL,
    private readonly onCrash: OnCrash,
    private readonly onReady: OnWorkerReady | undefined,
    private readonly backend: VerifierBackend,
    /** Given, the workers send each verified event's JSON, and it is put here. */
    private readonly eventJson?: EventJsonSink,
  ) {
    this.spawn();
  }

  /** Events sent and not yet answered: what least-loaded dispatch compares. */
  get load(): number {
    return this.events;
  }

  get alive(): boolean {
    return !this.gaveUp && !this.stopping;
  }

  send(batch: Batch): void {
    const id = this.nextBatch++;
    this.inflight.set(id, batch);
    // An idle pool must not keep the process alive; a busy one must.
    if (this.events === 0) this.worker.ref();
    this.events += batch.events.length;
    const req: PoolMessage = { batch: id, events: batch.events };
    try {
      this.worker.postMessage(req);
    } catch (err) {
      // Not cloneable (a function, a symbol…): not an event, and not the worker's fault.
      this.take(id);
      batch.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Asks the worker to end; the batches it held are returned unanswered at once. Idempotent. */
  stop(): { orphans: Batch[]; exited: Promise<unknown> } {
    this.stopping = true;
    const orphans = this.takeAll();
    const worker = this.worker;
    Atomics.store(this.shared, SHARED_STOP, 1);
    // Held so that a process awaiting the close does not end before the worker has.
    worker.ref();
    worker.postMessage({ stop: true } satisfies PoolMessage);
    return { orphans, exited: within(this.gone, STOP_GRACE_MS).then(() => worker.terminate()) };
  }

  private spawn(): void {
    Atomics.store(this.shared, SHARED_CHECKING, 0);
    const workerData: VerifyWorkerData = { backend: this.backend, shared: this.shared, json: this.eventJson !== undefined };
    const worker = new Worker(this.file, { workerData });
    this.worker = worker;
    worker.unref();
    let failure: Error | undefined;
    let goneNow!: () => void;
    this.gone = new Promise((done) => (goneNow = done));
    worker.on("message", (msg: WorkerMessage) => {
      if ("ready" in msg) this.onReady?.(worker, this.index);
      else this.answer(msg);
    });
    // Without a listener, a worker's uncaught exception would be thrown in the main thread.
    worker.on("error", (err) => (failure = err));
    worker.on("exit", (code) => {
      goneNow();
      this.exited(failure ?? new Error(`verifier worker exited with code ${code}`));
    });
  }

  private answer(res: VerifyResponse): void {
    const batch = this.take(res.batch);
    if (!batch) return;
    this.crashesInARow = 0;
    const { json, ends } = res;
    // Put before the verdicts are told: whoever stages an event on its verdict finds its JSON.
    // The worker sends none for an event that failed (and such an event is never staged).
    if (this.eventJson && json && ends?.length === batch.events.length) {
      for (let i = 0; i < ends.length; i++) {
        const bytes = jsonAt(json, ends, i);
        if (bytes) this.eventJson.put(batch.events[i]!, bytes);
      }
    }
    batch.settle(mapPacked(batch.events, (_, i) => verdictOf(res.codes[i])));
  }

  private exited(cause: Error): void {
    if (this.stopping) return;
    const checking = Atomics.load(this.shared, SHARED_CHECKING) - 1;
    const orphans = this.takeAll((id, batch) => {
      // Never reached the check (or was answered and the answer lost with the thread): its
      // try does not count.
      if (id !== checking) batch.attempts--;
    });
    this.crashes++;
    if (++this.crashesInARow >= MAX_CRASHES_IN_A_ROW) this.gaveUp = true;
    else this.respawn();
    this.onCrash(orphans, cause);
  }

  // Runs in an 'exit' handler, where a throw would be an uncaught exception of the whole
  // process. A worker that cannot even be created ends the slot like repeated crashes do.
  private respawn(): void {
    try {
      this.spawn();
    } catch {
      this.gaveUp = true;
    }
  }

  private take(id: number): Batch | undefined {
    const batch = this.inflight.get(id);
    if (!batch) return undefined;
    this.inflight.delete(id);
    this.events -= batch.events.length;
    if (this.events === 0) this.worker.unref();
    return batch;
  }

  private takeAll(each?: (id: number, batch: Batch) => void): Batch[] {
    if (each) for (const [id, batch] of this.inflight) each(id, batch);
    const all = [...this.inflight.values()];
    this.inflight.clear();
    this.events = 0;
    return all;
  }
}

/** Settles when `p` does or after `ms`, whichever comes first. */
function within(p: Promise<void>, ms: number): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(done, ms);
    void p.then(() => {
      clearTimeout(timer);
      done();
    });
  });
}
