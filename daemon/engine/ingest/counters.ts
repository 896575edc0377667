// Counts of what happened to inbound events, by outcome and reason, with the last few
// rejections kept verbatim (reason + detail) for the Director's status.

import type { Rejection } from "../../../src/daemon-status.js";

export class IngestCounters {
  readonly accepted = { total: 0 };
  readonly duplicates = { total: 0 };
  /** Copies of the daemon's own events sent back by a relay: expected, not a fault. */
  readonly echoes = { total: 0 };
  private readonly rejected = new Map<string, number>();
  private readonly ignored = new Map<string, number>();
  private readonly recent: Rejection[] = [];

  constructor(private readonly keepRecent = 50) {}

  reject(r: Rejection): void {
    this.rejected.set(r.reason, (this.rejected.get(r.reason) ?? 0) + 1);
    this.recent.push(r);
    if (this.recent.length > this.keepRecent) this.recent.shift();
  }

  ignore(reason: string): void {
    this.ignored.set(reason, (this.ignored.get(reason) ?? 0) + 1);
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
