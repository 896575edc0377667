// The system's real-time clock (what `date +%s%N` in another process reads) in milliseconds, with
// the monotonic clock's resolution. Not performance.timeOrigin + now(): a process sets its origin
// from two clock reads at its start, and 8 Node processes started together on this machine under
// load had origins up to 12-20 ms apart (most runs: under 0.1 ms). Here the offset between the two
// clocks is measured: Date.now() is read until it ticks, and the monotonic time read just before
// the tick is the offset to a microsecond or so.
//
// Measured again once a second at most, not once per process: this machine's real-time clock is
// slewed against the monotonic one (seen: 0.3-1.9 ms within a minute), and a full benchmark run
// with the offset taken at its start measured triggers 5 ms too fast (a floor's median of -0.2
// ms) and answers 5 ms too slow.

const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;
const RECALIBRATE_MS = 1_000;

// Busy for up to 1 ms (until Date.now() moves to its next millisecond).
function offsetMs(): number {
  const before = Date.now();
  for (;;) {
    const t = monotonicMs();
    const now = Date.now();
    if (now !== before) return now - t;
  }
}

let offset = offsetMs();
let calibratedAt = monotonicMs();

/** Now on the real-time clock, ms since the epoch, sub-millisecond. */
export function realtimeMs(): number {
  const now = monotonicMs();
  if (now - calibratedAt < RECALIBRATE_MS) return now + offset;
  offset = offsetMs();
  calibratedAt = monotonicMs();
  return calibratedAt + offset;
}
