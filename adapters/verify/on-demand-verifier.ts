// Signature checks sized to the load: a trickle of events (live traffic) is verified inline, with
// the verifier chosen at start (verifier-choice.ts: bcrypto native, ~70 µs an event, else
// nostr-wasm, ~0.3 ms); a burst (catch-up, a busy relay) starts the worker pool on every
// core, and the pool is stopped again once idle. Two worker isolates hold ~50 MB, which an idle
// daemon should not pay for. Every event is verified either way.
//
// nostr-wasm, when it is the one chosen, is loaded by the first inline check, not at start: a restart whose back-fill
// only re-reads stored events does not need it until the first event to check arrives (or is
// published), and its compiled module, its wasm heap and the wasm compiler's code cost the main
// thread ~4 MB of resident memory (docs/architecture.md, "Memory"). The checks made while it
// loads (~60 ms) wait for it and are answered in arrival order once it is there. They used to
// take nostr-tools' pure-JS path meanwhile, but that runs on the main thread at ~400 ev/s and
// blocks the load itself: the first ~200 events of a back-fill cost 0.8 s of main-thread time.
// Should the load fail, the pure-JS path answers (same verdicts) and the next check tries again.

import type { EventVerifier } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { VerifierClosedError } from "./errors.js";
import { jsCheck } from "./js-verify.js";
import { loadNativeCheck } from "./native-verify.js";
import { chooseVerifier, type VerifierChoice } from "./verifier-choice.js";
import { VerifierPool, type VerifierPoolOptions } from "./verifier-pool.js";
import type { Verdict } from "./verify-protocol.js";

type Check = (ev: NostrEvent) => Verdict;

export interface OnDemandOptions {
  /** Checks per second above which the pool is started. */
  burstPerSecond?: number;
  /** The pool is stopped after this long without a check. */
  idleMs?: number;
  pool?: VerifierPoolOptions;
  now?: () => number;
  /** The verifier, inline and in the pool's workers; default: chosen now (chooseVerifier). */
  choice?: VerifierChoice;
}

export class OnDemandVerifier implements EventVerifier {
  private pool: VerifierPool | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private windowStart = 0;
  private windowCount = 0;
  private closed = false;
  /** nostr-wasm's check, once loaded; `loading` while it is being loaded. */
  private inline: Check | undefined;
  private loading: Promise<unknown> | undefined;
  private readonly burst: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  readonly stats = { inline: 0, pooled: 0, poolStarts: 0 };
  readonly choice: VerifierChoice;

  constructor(private readonly opts: OnDemandOptions = {}) {
    this.burst = opts.burstPerSecond ?? 200;
    this.idleMs = opts.idleMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.choice = opts.choice ?? chooseVerifier();
    // The native module is small and loads at once; only nostr-wasm is worth loading late.
    if (this.choice.backend === "bcrypto-native") {
      const native = loadNativeCheck();
      if ("check" in native) this.inline = native.check;
    }
  }

  get poolRunning(): boolean {
    return this.pool !== undefined;
  }

  /** True once the inline check is loaded in this thread (nostr-wasm's: by the first inline check). */
  get inlineLoaded(): boolean {
    return this.inline !== undefined;
  }

  async verify(ev: NostrEvent): Promise<boolean> {
    return (await this.check(ev)) === "ok";
  }

  /**
   * `urgent`: someone waits on this one (it may set an agent to work, or the daemon publishes it):
   * checked inline even in a burst, rather than behind the events queued for the pool's workers
   * (under 2,000 ev/s a trigger waited 0.35-1.4 s there).
   */
  check(ev: NostrEvent, urgent = false): Promise<Verdict> {
    if (this.closed) return Promise.reject(new VerifierClosedError());
    const burst = this.isBurst();
    const pool = urgent ? undefined : this.pool ?? (burst ? this.startPool() : undefined);
    if (!pool) {
      this.stats.inline++;
      if (this.inline) return Promise.resolve(this.inline(ev));
      // Callbacks on one promise run in the order they were added: arrival order is kept.
      return this.loadInline().then(() => (this.inline ?? jsCheck)(ev));
    }
    this.stats.pooled++;
    // The idle clock starts when the pool has answered every check, never before (armIdle).
    clearTimeout(this.idleTimer);
    return pool.check(ev);
  }

  /**
   * The verdicts of events that came together (InboundRoute.fromRelayMany), in their order: in a
   * burst, one message to the pool's workers (split among them); else each checked inline.
   */
  checkMany(evs: readonly NostrEvent[]): Promise<Verdict[]> {
    if (this.closed) return Promise.reject(new VerifierClosedError());
    const burst = this.isBurst(evs.length);
    const pool = this.pool ?? (burst ? this.startPool() : undefined);
    if (!pool) {
      this.stats.inline += evs.length;
      const { inline } = this;
      if (inline) return Promise.resolve(evs.map((ev) => inline(ev)));
      return this.loadInline().then(() => evs.map((ev) => (this.inline ?? jsCheck)(ev)));
    }
    this.stats.pooled += evs.length;
    clearTimeout(this.idleTimer);
    return pool.checkBatch(evs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await this.pool?.close();
    this.pool = undefined;
  }

  /** Loads nostr-wasm, once; settles either way. Should it fail, the next check tries again. */
  private loadInline(): Promise<unknown> {
    this.loading ??= import("./wasm-verify.js").then(
      (m) => (this.inline = m.wasmCheck),
      () => (this.loading = undefined),
    );
    return this.loading;
  }

  /** Counts `n` checks in this second's window (one clock read for a slice's): whether they make a burst. */
  private isBurst(n = 1): boolean {
    const now = this.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount += n;
    return this.windowCount > this.burst;
  }

  private startPool(): VerifierPool {
    this.stats.poolStarts++;
    this.pool = new VerifierPool({ ...this.opts.pool, backend: this.choice.backend, onIdle: () => {
      this.opts.pool?.onIdle?.();
      this.armIdle();
    } });
    return this.pool;
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const pool = this.pool;
      if (pool?.busy) return;
      this.pool = undefined;
      void pool?.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
