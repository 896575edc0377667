// The system's real-time clock (what `date +%s%N` in another process reads) in milliseconds, with
// the monotonic clock's resolution. Not performance.timeOrigin + now(): a process sets its origin
// from two clock reads at its start, and 8 Node processes started together on this machine under
// load had origins up to 12-20 ms apart (most runs: under 0.1 ms). Here the offset between the two
// clocks is measured: Date.now() is read until it ticks, and the monotonic time read just before
// the tick is the offset to a microsecond or so.
//
// Measured again once a second at most, not once per process: this machine's real-time clock is
// slewed against the monotonic one (the offset seen 0.5-1.9 ms away from its first reading 10-60 s
// later), and a full benchmark run with the offset taken at its start gave the floor's trigger
// median as -0.2 ms (4.1-4.4 in the runs before and after): a few ms off.

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
