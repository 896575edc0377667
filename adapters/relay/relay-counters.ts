// What the embedded relay refused, and why: every refusal is counted under its reason
// (src/relay-guard/refusals.ts), for the daemon's status.

import { REFUSAL_REASONS, type RefusalReason } from "../../src/relay-guard/refusals.js";
import type { RelayCountersSnapshot } from "../../src/daemon-status.js";

export class RelayCounters {
  private readonly refusals = Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0])) as Record<RefusalReason, number>;
  connections = 0;
  authenticated = 0;
  accepted = 0;

  refuse(reason: RefusalReason): void {
    this.refusals[reason]++;
  }

  snapshot(): RelayCountersSnapshot {
    return { connections: this.connections, authenticated: this.authenticated, accepted: this.accepted, refused: { ...this.refusals } };
  }
}
