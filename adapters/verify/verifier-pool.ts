// Id and signature verification of every inbound event, spread over worker threads so it
// scales with cores. Single events are micro-batched: collected for at most `lingerMs` or up to
// `maxBatch`, then sent as one message to the least-loaded worker, so the per-message cost is
// shared and a steady stream keeps every worker busy. A worker that dies is replaced and its
// batches are retried once on another, then failed: a caller never waits forever.

import { availableParallelism } from "node:os";
import { mapPacked } from "../../src/map-packed.js";
import type { EventVerifier } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { VerifierClosedError, VerifierUnavailableError, VerifyFailedError } from "./errors.js";
import type { EventJsonSink } from "./event-json.js";
import { chooseVerifier, type VerifierBackend } from "./verifier-choice.js";
import type { Verdict } from "./verify-protocol.js";
import { workerFile } from "./worker-file.js";
import { WorkerSlot, type Batch, type OnWorkerReady } from "./worker-slot.js";

export interface VerifierPoolOptions {
  /** Worker threads; default: poolWorkers(backend). */
  workers?: number;
  /** Most events per message to a worker; default 128. */
  maxBatch?: number;
  /** How long a single event may wait for others to share its message; default 1 ms. */
  lingerMs?: number;
  /** Called with every worker once it has loaded its verifier, replacements included (tests). */
  onWorkerReady?: OnWorkerReady;
  /**
   * The verifier the workers run; default: chosen now (verifier-choice.ts), as the daemon's.
   * (The default was nostr-wasm, and the in-process ingest benchmark measured the fallback
   * for weeks while its notes and ceiling assumed the native verifier.)
   */
  backend?: VerifierBackend;
  /**
   * Told each time the pool falls idle: the last event in flight answered (or failed), none
   * waiting. A caller that stops an idle pool starts its clock here (without a reaction of its
   * own on every check's promise: two promises an event, in a burst).
   */
  onIdle?: () => void;
  /** Given, the workers also serialize each event they find "ok", and its JSON is put here (event-json.ts); native backend only. */
  eventJson?: EventJsonSink;
}

/**
 * The pool's default size: a core for each worker but one, left for the main thread, when the
 * verifier is native; every core with nostr-wasm. The main thread (the fold, the log, the socket)
 * is the ingest's critical path: on two cores a second native worker took its core away from it
 * more than it added (one worker verifies ~18,000 events a second here, above what the rest of
 * the path takes), and one worker ingested 5-12% more, in-process, live and from a relay
 * (docs/performance.md, "Verifier workers"). nostr-wasm verifies ~3,800 a second a core, and
 * there verification is the cap.
 */
export function poolWorkers(backend: VerifierBackend, cores = availableParallelism()): number {
  return backend === "nostr-wasm" ? Math.max(1, cores) : Math.max(1, cores - 1);
}

export interface VerifierPoolStats {
  /** Workers running (slots not given up on). */
  workers: number;
  /** Workers that died, in all slots. */
  crashes: number;
  /** Events sent to workers and not yet answered. */
  inflight: number;
  /** Events waiting for their micro-batch to leave. */
  queued: number;
}

interface Waiting {
  ev: NostrEvent;
  resolve(v: Verdict): void;
  reject(err: Error): void;
}

// Past the first try, a batch gets one retry on another worker, then fails.
const MAX_ATTEMPTS = 2;

export class VerifierPool implements EventVerifier {
  /** The verifier its workers run. */
  readonly backend: VerifierBackend;
  private readonly slots: WorkerSlot[];
  private readonly maxBatch: number;
  private readonly lingerMs: number;
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private rotation = 0;
  private closing: Promise<void> | undefined;
  private readonly onIdle: (() => void) | undefined;

  constructor(opts: VerifierPoolOptions = {}) {
    this.onIdle = opts.onIdle;
    const backend = (this.backend = opts.backend ?? chooseVerifier().backend);
    const workers = opts.workers ?? poolWorkers(backend);
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    this.maxBatch = Math.max(1, opts.maxBatch ?? 128);
    this.lingerMs = opts.lingerMs ?? 1;
    const file = workerFile();
    // Only beside the native check, which has the event's texts at hand: with nostr-wasm the
    // workers' checks are the ingest's cap, and serializing there would lower it.
    const eventJson = backend === "bcrypto-native" ? opts.eventJson : undefined;
    this.slots = Array.from({ length: workers }, (_, i) =>
      new WorkerSlot(i, file, (orphans, cause) => this.retry(orphans, cause), opts.onWorkerReady, backend, eventJson));
  }

  verify(ev: NostrEvent): Promise<boolean> {
    return this.check(ev).then((v) => v === "ok");
  }

  /** The verdict for one event (micro-batched with others arriving within `lingerMs`). */
  check(ev: NostrEvent): Promise<Verdict> {
    if (this.closing) return Promise.reject(new VerifierClosedError());
    return new Promise((resolve, reject) => {
      this.waiting.push({ ev, resolve, reject });
      if (this.waiting.length >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  async verifyBatch(evs: readonly NostrEvent[]): Promise<boolean[]> {
    return (await this.checkBatch(evs)).map((v) => v === "ok");
  }

  /** Verdicts for many events, in their order. Split so that every worker gets a share. */
  async checkBatch(evs: readonly NostrEvent[]): Promise<Verdict[]> {
    if (this.closing) throw new VerifierClosedError();
    // Several batches per worker, so one slow batch does not leave the others idle.
    const size = Math.max(1, Math.min(this.maxBatch, Math.ceil(evs.length / (this.slots.length * 4))));
    const parts: Promise<Verdict[]>[] = [];
    for (let i = 0; i < evs.length; i += size) {
      const events = evs.slice(i, i + size);
      parts.push(new Promise((settle, fail) => this.dispatch({
        events, attempts: 0,
        settle: (verdicts) => {
          settle(verdicts);
          this.settled();
        },
        fail: (err) => {
          fail(err);
          this.settled();
        },
      })));
    }
    return (await Promise.all(parts)).flat();
  }

  stats(): VerifierPoolStats {
    let workers = 0, crashes = 0, inflight = 0;
    for (const s of this.slots) {
      if (s.alive) workers++;
      crashes += s.crashes;
      inflight += s.load;
    }
    return { workers, crashes, inflight, queued: this.waiting.length };
  }

  /** Stops the workers; whatever has no verdict yet is rejected with VerifierClosedError. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    clearTimeout(this.timer);
    const closed = new VerifierClosedError();
    for (const w of this.waiting.splice(0)) w.reject(closed);
    const stops = this.slots.map((s) => s.stop());
    for (const { orphans } of stops) for (const b of orphans) b.fail(closed);
    await Promise.all(stops.map((s) => s.exited));
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.waiting.splice(0);
    if (items.length === 0) return;
    this.dispatch({
      events: mapPacked(items, (w) => w.ev),
      attempts: 0,
      settle: (verdicts) => {
        items.forEach((w, i) => w.resolve(verdicts[i]!));
        this.settled();
      },
      fail: (err) => {
        items.forEach((w) => w.reject(err));
        this.settled();
      },
    });
  }

  /** Events waiting for their batch or sent and not answered. */
  get busy(): boolean {
    return this.waiting.length > 0 || this.slots.some((s) => s.load > 0);
  }

  private settled(): void {
    if (this.onIdle && !this.busy) this.onIdle();
  }

  private dispatch(batch: Batch): void {
    const slot = this.leastLoaded();
    if (!slot) return batch.fail(new VerifierUnavailableError());
    batch.attempts++;
    slot.send(batch);
  }

  private retry(orphans: Batch[], cause: Error): void {
    for (const b of orphans) {
      if (b.attempts >= MAX_ATTEMPTS) b.fail(new VerifyFailedError(b.events.length, cause));
      else this.dispatch(b);
    }
  }

  // Fewest events in flight; the starting point rotates so that equal loads take turns.
  private leastLoaded(): WorkerSlot | undefined {
    const n = this.slots.length;
    let best: WorkerSlot | undefined;
    for (let k = 0; k < n; k++) {
      const s = this.slots[(this.rotation + k) % n]!;
      if (s.alive && (!best || s.load < best.load)) best = s;
    }
    this.rotation = (this.rotation + 1) % n;
    return best;
  }
}
