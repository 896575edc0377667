// One place in the VerifierPool: a worker thread, the batches it holds, and its replacement
// when it dies. A slot whose workers keep dying without finishing anything is given up on, so
// a broken build or a poison input cannot spin forever.

import { Worker } from "node:worker_threads";
import type { NostrEvent } from "../../src/types.js";
import type { VerifierBackend } from "./verifier-choice.js";
import { verdictOf, type Verdict, type VerifyRequest, type VerifyResponse } from "./verify-protocol.js";

/** Events sent to a worker as one message, and how to answer whoever is waiting on them. */
export interface Batch {
  readonly events: NostrEvent[];
  /** How many times it was sent to a worker. */
  attempts: number;
  settle(verdicts: Verdict[]): void;
  fail(err: Error): void;
}

/** Called when the slot's worker died holding `orphans` (the slot has already replaced it). */
export type OnCrash = (orphans: Batch[], cause: Error) => void;
export type OnWorkerStart = (worker: Worker, slot: number) => void;

const MAX_CRASHES_IN_A_ROW = 3;

export class WorkerSlot {
  private worker!: Worker;
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
    private readonly onStart: OnWorkerStart | undefined,
    private readonly backend: VerifierBackend,
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
    const req: VerifyRequest = { batch: id, events: batch.events };
    try {
      this.worker.postMessage(req);
    } catch (err) {
      // Not cloneable (a function, a symbol…): not an event, and not the worker's fault.
      this.take(id);
      batch.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Terminates the worker; the batches it held are returned unanswered. Idempotent. */
  stop(): { orphans: Batch[]; exited: Promise<unknown> } {
    this.stopping = true;
    const orphans = this.takeAll();
    return { orphans, exited: this.worker.terminate() };
  }

  private spawn(): void {
    const worker = new Worker(this.file, { workerData: { backend: this.backend } });
    this.worker = worker;
    worker.unref();
    let failure: Error | undefined;
    worker.on("message", (res: VerifyResponse) => this.answer(res));
    // Without a listener, a worker's uncaught exception would be thrown in the main thread.
    worker.on("error", (err) => (failure = err));
    worker.on("exit", (code) => this.exited(failure ?? new Error(`verifier worker exited with code ${code}`)));
    this.onStart?.(worker, this.index);
  }

  private answer(res: VerifyResponse): void {
    const batch = this.take(res.batch);
    if (!batch) return;
    this.crashesInARow = 0;
    batch.settle(batch.events.map((_, i) => verdictOf(res.codes[i])));
  }

  private exited(cause: Error): void {
    if (this.stopping) return;
    const orphans = this.takeAll();
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

  private takeAll(): Batch[] {
    const all = [...this.inflight.values()];
    this.inflight.clear();
    this.events = 0;
    return all;
  }
}
