// A periodic background task with daemon discipline: it never dies on an error, records the
// last one for the status, backs off while failing, and stops promptly and idempotently.

import type { LoopStatus } from "../../../src/daemon-status.js";

export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private consecutiveFailures = 0;
  private running: Promise<void> | undefined;
  readonly status: LoopStatus;

  constructor(
    name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<void> | void,
    private readonly now: () => number = Date.now,
    private readonly maxBackoffMs = 60_000,
  ) {
    this.status = { name, runs: 0, failures: 0 };
  }

  start(runNow = false): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(runNow ? 0 : this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    delete this.status.nextRunAt;
    await this.running;
  }

  /** Runs now rather than at the scheduled time (a backoff included); nothing if running already. */
  runSoon(): void {
    if (this.stopped || this.running || !this.timer) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.status.nextRunAt = this.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      delete this.status.nextRunAt;
      this.running = this.tick().finally(() => (this.running = undefined));
    }, delay);
    // A background loop alone must not keep the process alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.status.runs++;
    this.status.lastRunAt = this.now();
    try {
      await this.task();
      this.consecutiveFailures = 0;
    } catch (err) {
      this.consecutiveFailures++;
      this.status.failures++;
      this.status.lastError = { at: this.now(), message: err instanceof Error ? err.message : String(err) };
    }
    const backoff = Math.min(this.maxBackoffMs, this.intervalMs * 2 ** this.consecutiveFailures);
    this.schedule(this.consecutiveFailures > 0 ? backoff : this.intervalMs);
  }
}
