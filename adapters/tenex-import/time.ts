// TENEX stamped its own state with Date.now() (milliseconds) but copied event times (seconds)
// into some records, completions among them. Anything below 1e11 is read as seconds: as
// milliseconds it would be March 1973, as seconds it is the year 5138.

const SECONDS_LIMIT = 1e11;

/** The stamp was copied from an event's created_at (seconds), not taken from TENEX's clock. */
export const isSecondsStamp = (t: number): boolean => t < SECONDS_LIMIT;

export const toMs = (t: number): number => (isSecondsStamp(t) ? Math.round(t * 1000) : Math.round(t));
