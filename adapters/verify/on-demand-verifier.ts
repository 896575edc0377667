// Signature checks sized to the load: a trickle of events (live traffic) is verified inline with
// nostr-wasm, ~0.5 ms each; a burst (catch-up, a busy relay) starts the worker pool on every
// core, and the pool is stopped again once idle. Two worker isolates hold ~50 MB, which an idle
// daemon should not pay for. Every event is verified either way.

import type { EventVerifier } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { VerifierClosedError } from "./errors.js";
import { VerifierPool, type VerifierPoolOptions } from "./verifier-pool.js";
import type { Verdict } from "./verify-protocol.js";
import { wasmCheck } from "./wasm-verify.js";

export interface OnDemandOptions {
  /** Checks per second above which the pool is started. */
  burstPerSecond?: number;
  /** The pool is stopped after this long without a check. */
  idleMs?: number;
  pool?: VerifierPoolOptions;
  now?: () => number;
}

export class OnDemandVerifier implements EventVerifier {
  private pool: VerifierPool | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private windowStart = 0;
  private windowCount = 0;
  private inflight = 0;
  private closed = false;
  private readonly burst: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  readonly stats = { inline: 0, pooled: 0, poolStarts: 0 };

  constructor(private readonly opts: OnDemandOptions = {}) {
    this.burst = opts.burstPerSecond ?? 200;
    this.idleMs = opts.idleMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  get poolRunning(): boolean {
    return this.pool !== undefined;
  }

  async verify(ev: NostrEvent): Promise<boolean> {
    return (await this.check(ev)) === "ok";
  }

  check(ev: NostrEvent): Promise<Verdict> {
    if (this.closed) return Promise.reject(new VerifierClosedError());
    const pool = this.pool ?? (this.isBurst() ? this.startPool() : undefined);
    if (!pool) {
      this.stats.inline++;
      return Promise.resolve(wasmCheck(ev));
    }
    this.stats.pooled++;
    this.inflight++;
    clearTimeout(this.idleTimer);
    // The idle clock starts when the last check in flight is answered, never before.
    return pool.check(ev).finally(() => {
      if (--this.inflight === 0) this.armIdle();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await this.pool?.close();
    this.pool = undefined;
  }

  private isBurst(): boolean {
    const now = this.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    return ++this.windowCount > this.burst;
  }

  private startPool(): VerifierPool {
    this.stats.poolStarts++;
    this.pool = new VerifierPool(this.opts.pool);
    return this.pool;
  }

  private armIdle(): void {
    this.idleTimer = setTimeout(() => {
      if (this.inflight > 0) return;
      const pool = this.pool;
      this.pool = undefined;
      void pool?.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
