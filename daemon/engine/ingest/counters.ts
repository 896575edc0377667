// Counts of what happened to inbound events, by outcome and reason, with the last few
// rejections kept verbatim (reason + detail) for the Director's status.

import type { Rejection } from "../../../src/daemon-status.js";
import { emptyRing, perMinute, sample, type MinutePoint } from "../../../src/dashboard/minute-series.js";

export class IngestCounters {
  readonly accepted = { total: 0 };
  readonly duplicates = { total: 0 };
  /** Copies of the daemon's own events sent back by a relay: expected, not a fault. */
  readonly echoes = { total: 0 };
  private readonly rejected = new Map<string, number>();
  private readonly ignored = new Map<string, number>();
  private readonly recent: Rejection[] = [];
  /** The counters at the start of each of the last 60 minutes. */
  private readonly minutes = emptyRing();

  constructor(private readonly keepRecent = 50) {}

  reject(r: Rejection): void {
    this.rejected.set(r.reason, (this.rejected.get(r.reason) ?? 0) + 1);
    this.recent.push(r);
    if (this.recent.length > this.keepRecent) this.recent.shift();
  }

  ignore(reason: string): void {
    this.ignored.set(reason, (this.ignored.get(reason) ?? 0) + 1);
  }

  /** Takes the minute's sample when a new minute has begun (the minute-counters loop calls it). */
  sampleMinute(now: number): void {
    sample(this.minutes, now, { accepted: this.accepted.total, rejected: Object.fromEntries(this.rejected) });
  }

  /** Accepted and rejected (by reason) per minute over the last hour. */
  perMinute(now: number): MinutePoint[] {
    return perMinute(this.minutes, now, { accepted: this.accepted.total, rejected: Object.fromEntries(this.rejected) });
  }

  snapshot() {
    return {
      accepted: this.accepted.total,
      duplicates: this.duplicates.total,
      echoes: this.echoes.total,
      rejected: Object.fromEntries(this.rejected),
      rejectedTotal: [...this.rejected.values()].reduce((a, b) => a + b, 0),
      ignored: Object.fromEntries(this.ignored),
      recentRejections: [...this.recent],
    };
  }
}
