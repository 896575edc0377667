// NIP-40 in SQL, as src/messaging/unread.ts decides it (isPastExpiry): an event is expired
// from its expiration second on, so `expiration == now` is expired. Every query of the index
// builds its expiry test from here, so no two of them can disagree on that second.

/** Unix seconds of an epoch-ms time (Clock.now()). */
export const nowSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

/** SQL: `column` (unix seconds, NULL = never) has expired at `now` (unix seconds). */
export const expiredSql = (column: string, now: string): string => `(${column} IS NOT NULL AND ${column} <= ${now})`;

/** SQL: `column` has not expired at `now`. */
export const unexpiredSql = (column: string, now: string): string => `(${column} IS NULL OR ${column} > ${now})`;
