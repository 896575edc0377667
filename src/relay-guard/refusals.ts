// What the embedded relay refuses, and why: every refusal is counted under its reason, for the
// daemon's status (adapters/relay/relay-counters.ts). The codes are stable: new ones go at the end.

export const REFUSAL_REASONS = [
  "origin_refused", "too_many_connections", "too_many_from_address", "connection_rate", "connections_dropped",
  "frame_too_large", "bad_frame", "request_too_large", "too_many_filters", "too_many_subscriptions",
  "rate_limited", "slow_reader", "invalid_message", "event_too_large",
  "auth_required", "auth_refused", "write_restricted",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
