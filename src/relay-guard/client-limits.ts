// What one connection to the embedded relay may cost: messages and bytes per second (token
// buckets), subscriptions and filters, and data waiting to be sent to it. A connection
// authenticated as the daemon's own key (`trusted`) is bounded only by what it asks for.

import { take, type Bucket, type BucketRate } from "./token-bucket.js";

export interface ClientLimits {
  messagesPerSecond: number;
  bytesPerSecond: number;
  maxSubscriptions: number;
  /** Data waiting to be sent to a client authenticated as one of the project's people. */
  maxBufferedBytes: number;
}

/** Who is on the other end: the daemon itself, one of the project's people (AUTH), or anyone else. */
export type ClientTier = "trusted" | "member" | "stranger";

/** The daemon's defaults (config.json `embeddedRelay`). */
export const DEFAULT_CLIENT_LIMITS: ClientLimits = {
  messagesPerSecond: 100,
  bytesPerSecond: 1024 * 1024,
  maxSubscriptions: 64,
  maxBufferedBytes: 16 * 1024 * 1024,
};

/** What all connections but the daemon's own may send together, per second (config.json `embeddedRelay`). */
export const DEFAULT_INBOUND_BYTES_PER_SECOND = 4 * 1024 * 1024;

/** The shared budget's bucket: a second of its rate, and never less than two of the largest frames. */
export const inboundRate = (bytesPerSecond: number, maxFrameBytes: number): BucketRate => ({
  capacity: Math.max(bytesPerSecond, 2 * maxFrameBytes), perSecond: bytesPerSecond,
});

/** Who a connection is before AUTH: a stranger where the relay asks for AUTH, else as good as a member. */
export const tierBeforeAuth = (asksAuth: boolean): ClientTier => (asksAuth ? "stranger" : "member");

/** Who a connection is once authenticated as `pubkey` (one of the project's people). */
export const tierAfterAuth = (pubkey: string, trusted: ReadonlySet<string> | undefined): ClientTier =>
  (trusted?.has(pubkey) ? "trusted" : "member");

/** Filters in one REQ. */
export const MAX_FILTERS_PER_REQUEST = 32;
/** A client that has not authenticated gets only short answers (OK, NOTICE, CLOSED); reading none of them costs this much at most. */
export const STRANGER_BUFFERED_BYTES = 256 * 1024;
/** Buckets hold this many seconds of their rate. */
const BURST_SECONDS = 10;

export interface Rates {
  messages: BucketRate;
  bytes: BucketRate;
}

/** The buckets for `limits`; the byte bucket always holds at least two of the largest frames. */
export const ratesFor = (limits: ClientLimits, maxFrameBytes: number): Rates => ({
  messages: { capacity: limits.messagesPerSecond * BURST_SECONDS, perSecond: limits.messagesPerSecond },
  bytes: { capacity: Math.max(limits.bytesPerSecond * BURST_SECONDS, 2 * maxFrameBytes), perSecond: limits.bytesPerSecond },
});

export interface Spend {
  messages: Bucket;
  bytes: Bucket;
}

/** Charges one frame of `bytes`; `ok: false` once either bucket is empty. */
export function chargeFrame(spend: Spend, rates: Rates, bytes: number, now: number): { ok: boolean; spend: Spend; message?: string } {
  const m = take(spend.messages, rates.messages, 1, now);
  const b = take(spend.bytes, rates.bytes, bytes, now);
  if (m.ok && b.ok) return { ok: true, spend: { messages: m.bucket, bytes: b.bucket } };
  const what = m.ok ? `${rates.bytes.perSecond} bytes/s` : `${rates.messages.perSecond} messages/s`;
  return { ok: false, spend: { messages: m.ok ? spend.messages : m.bucket, bytes: b.ok ? spend.bytes : b.bucket }, message: `rate-limited: over ${what}; disconnecting` };
}

/** The most data that may wait to be sent to a client of `tier`. */
export function bufferLimit(tier: ClientTier, limits: ClientLimits): number {
  if (tier === "trusted") return Number.POSITIVE_INFINITY;
  return tier === "member" ? limits.maxBufferedBytes : STRANGER_BUFFERED_BYTES;
}

export type RequestRefusalReason = "too_many_filters" | "too_many_subscriptions";

/**
 * Why a REQ is refused before it runs, or undefined. `subscriptions`: those the client holds
 * now; `replacesOne`: the REQ reuses the id of one of them.
 */
export function refuseRequest(
  filters: number, subscriptions: number, replacesOne: boolean, limits: ClientLimits,
): { reason: RequestRefusalReason; message: string } | undefined {
  if (filters > MAX_FILTERS_PER_REQUEST) return { reason: "too_many_filters", message: `invalid: ${filters} filters in one REQ, limit ${MAX_FILTERS_PER_REQUEST}` };
  if (!replacesOne && subscriptions >= limits.maxSubscriptions) {
    return { reason: "too_many_subscriptions", message: `rate-limited: ${subscriptions} subscriptions open, limit ${limits.maxSubscriptions}; CLOSE one first` };
  }
  return undefined;
}
