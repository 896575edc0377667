// Token buckets: a client may spend `capacity` at once and `perSecond` more each second after.

export interface BucketRate {
  capacity: number;
  perSecond: number;
}

export interface Bucket {
  tokens: number;
  /** Epoch ms of the last refill. */
  at: number;
}

export const fullBucket = (rate: BucketRate, now: number): Bucket => ({ tokens: rate.capacity, at: now });

/**
 * Refills `bucket` for the time passed and takes `cost` from it if it holds that much. A refused
 * take leaves the tokens as they were (refilled): nothing is spent on what was refused.
 */
export function take(bucket: Bucket, rate: BucketRate, cost: number, now: number): { ok: boolean; bucket: Bucket } {
  const elapsed = Math.max(0, now - bucket.at) / 1000;
  const tokens = Math.min(rate.capacity, bucket.tokens + elapsed * rate.perSecond);
  if (cost > tokens) return { ok: false, bucket: { tokens, at: now } };
  return { ok: true, bucket: { tokens: tokens - cost, at: now } };
}

/**
 * Takes `cost` even from an empty bucket (the bytes are already read), leaving it in debt, and
 * says how long to wait before reading more: until the debt is paid back. Shared by every
 * connection, it holds them all together to `rate.perSecond`.
 */
export function takeOnCredit(bucket: Bucket, rate: BucketRate, cost: number, now: number): { bucket: Bucket; waitMs: number } {
  const elapsed = Math.max(0, now - bucket.at) / 1000;
  const tokens = Math.min(rate.capacity, bucket.tokens + elapsed * rate.perSecond) - cost;
  return { bucket: { tokens, at: now }, waitMs: tokens >= 0 ? 0 : Math.ceil((-tokens / rate.perSecond) * 1000) };
}
