// The index's writer on a thread of its own: the daemon's main thread hands it the feeder's
// batches (an IndexApplier) and goes on with the fold and the log while SQLite writes them, on
// another core. The main thread keeps its own connection for reading (WAL: readers see each
// batch once committed) and for the rare writes of start, rebuild and repair, made while this
// thread has nothing in flight (see ConversationStore.indexed).
//
// The thread starts with the first batch and runs until close or `retire` (it costs ~12 MB of
// memory: the daemon runs it only under load, on-demand-index-writer.ts). One batch at a time
// is in flight (the feeder sends the next once this one is answered). A batch SQLite refuses is
// rolled back and its error returned; a thread that dies fails what it was sending, and the next
// batch starts a new one: the index is derived, and what it missed is repaired from the logs at
// the next start (the engine records that the index is incomplete).

import { Worker } from "node:worker_threads";
import type { IndexApplier, IndexItem } from "../../src/ports.js";
import { detachEarly } from "../worker-thread/detach-early.js";
import { workerFile } from "../worker-thread/worker-file.js";
import { packBatch } from "./index-wire.js";
import type { WriterRequest, WriterResponse } from "./writer-protocol.js";

// What the writer thread loads, transitively (src/ for the record and row types it reads).
const WORKER_SOURCES = ["adapters/sqlite-index", "adapters/state-file", "src"];

export class IndexWriterError extends Error {
  override name = "IndexWriterError";
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

interface Waiting {
  resolve(): void;
  reject(err: Error): void;
}

export class WorkerIndexWriter implements IndexApplier {
  readonly blocking = false;
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, Waiting>();
  private closing: Promise<void> | undefined;
  /** A thread retired (retire) and not yet exited. */
  private retiring: Promise<void> | undefined;
  /** Threads that died (tests). */
  crashes = 0;
  /**
   * A batch held (sent by hold, its commit or rollback not yet sent: the thread must not retire),
   * or lost with a thread that died holding it.
   */
  private held: "no" | "yes" | "lost" = "no";
  private readonly script: URL;

  /** Throws WorkerScriptError when the thread's compiled script is missing or stale. */
  constructor(private readonly path: string) {
    detachEarly();
    this.script = workerFile("adapters/sqlite-index/index-writer-worker", WORKER_SOURCES);
  }

  apply(items: readonly IndexItem[]): Promise<void> {
    return this.sendBatch(items, false);
  }

  /** As apply, the transaction left open until commit or rollback (IndexApplier.hold). */
  hold(items: readonly IndexItem[]): Promise<void> {
    this.held = "yes";
    return this.sendBatch(items, true);
  }

  commit(): Promise<void> {
    return this.end("commit");
  }

  rollback(): Promise<void> {
    return this.end("rollback");
  }

  private end(how: "commit" | "rollback"): Promise<void> {
    const lost = this.held === "lost";
    this.held = "no";
    if (!lost) return this.send((seq) => ({ seq, end: how }));
    // Not sent: a new thread would be started only to say it holds nothing.
    return how === "commit" ? Promise.reject(new IndexWriterError("the held batch was lost with its thread")) : Promise.resolve();
  }

  private sendBatch(items: readonly IndexItem[], hold: boolean): Promise<void> {
    const batch = packBatch(items);
    // The lines' buffer is packBatch's own: handed over, not copied.
    return this.send((seq) => ({ seq, hold, ...batch }), batch.lines ? [batch.lines.buffer as ArrayBuffer] : []);
  }

  /**
   * Raises relays' high-water marks (RelayMarks.setHighWater) after the batches sent before:
   * written on this thread, each would wait for the batch the index's thread is committing.
   */
  setHighWaters(marks: readonly (readonly [relay: string, createdAt: number])[]): Promise<void> {
    return this.send((seq) => ({ seq, marks }));
  }

  /** True once close was called: writes then go to the index on the calling thread. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** True while a thread runs (from the first batch sent until close, retire or a crash). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Stops the thread when it has nothing in flight or held (the next batch starts a new one),
   * giving back its memory; false when it had, or was not running.
   */
  retire(): boolean {
    const worker = this.worker;
    if (!worker || this.waiting.size > 0 || this.held === "yes") return false;
    this.worker = undefined;
    this.retiring = exitOf(worker).then(() => (this.retiring = undefined));
    worker.postMessage({ close: true } satisfies WriterRequest);
    return true;
  }

  private send(request: (seq: number) => WriterRequest, transfer: ArrayBuffer[] = []): Promise<void> {
    if (this.closing) return Promise.reject(new IndexWriterError("the index writer is closed"));
    const worker = (this.worker ??= this.start());
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      try {
        worker.postMessage(request(seq), transfer);
      } catch (err) {
        // Not sendable (DataCloneError): refused here, the thread never saw it.
        reject(new IndexWriterError(`batch not sent: ${String(err)}`));
        return;
      }
      this.waiting.set(seq, { resolve, reject });
    });
  }

  /** Idempotent; waits for the batch in flight, then closes the thread's connection. */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    await Promise.allSettled([...this.waiting.values()].map((w) => new Promise<void>((done) => {
      const { resolve, reject } = w;
      w.resolve = () => { resolve(); done(); };
      w.reject = (err) => { reject(err); done(); };
    })));
    await this.retiring;
    const worker = this.worker;
    if (!worker) return;
    const exited = exitOf(worker);
    worker.postMessage({ close: true } satisfies WriterRequest);
    await exited;
  }

  private start(): Worker {
    const worker = new Worker(this.script, { workerData: { path: this.path } });
    worker.on("message", (res: WriterResponse) => {
      const w = this.waiting.get(res.seq);
      if (!w) return;
      this.waiting.delete(res.seq);
      if (res.error) w.reject(new IndexWriterError(`${res.error.name}: ${res.error.message}`, res.error.code));
      else w.resolve();
    });
    worker.on("error", (err) => this.died(worker, err));
    worker.on("exit", (code) => this.died(worker, new IndexWriterError(`the index writer thread exited (code ${code})`)));
    return worker;
  }

  private died(worker: Worker, cause: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    // What it held went with it (SQLite drops an uncommitted transaction): its commit must fail.
    if (this.held === "yes") this.held = "lost";
    if (!this.closing) this.crashes++;
    const failed = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of failed) w.reject(new IndexWriterError(`index writer thread died: ${cause.message}`));
  }
}

function exitOf(worker: Worker): Promise<void> {
  return new Promise<void>((done) => worker.once("exit", () => done()));
}
