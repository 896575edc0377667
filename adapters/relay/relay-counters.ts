// What the embedded relay refused, and why: every refusal is counted under its reason, for the
// daemon's status.

export const REFUSAL_REASONS = [
  "origin_refused", "too_many_connections", "too_many_from_address", "connection_rate", "connections_dropped",
  "frame_too_large", "bad_frame", "request_too_large", "too_many_filters", "too_many_subscriptions",
  "rate_limited", "slow_reader", "invalid_message", "event_too_large",
  "auth_required", "auth_refused", "write_restricted",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface RelayCountersSnapshot {
  /** Connections open now. */
  connections: number;
  /** Connections open now that authenticated as one of the project's people. */
  authenticated: number;
  /** Connections accepted since start. */
  accepted: number;
  refused: Record<RefusalReason, number>;
}

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
