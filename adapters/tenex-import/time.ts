// TENEX stamped its own state with Date.now() (milliseconds) but copied event times (seconds)
// into some records, completions among them. Anything below 1e11 is read as seconds: as
// milliseconds it would be March 1973, as seconds it is the year 5138.

const SECONDS_LIMIT = 1e11;

export const toMs = (t: number): number => (t < SECONDS_LIMIT ? Math.round(t * 1000) : Math.round(t));
