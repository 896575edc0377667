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

// A tick read more than this after the previous look, or this long after the monotonic read
// beside it, is refused: the thread was descheduled in between, and the tick may be that far behind.
const TIGHT_MS = 0.05;
const MAX_TRIES = 20;

// Busy for ~1 ms a try (until Date.now() moves to its next millisecond). A try whose reads were
// not back to back is thrown away: on two busy cores a preemption of ~4 ms between the monotonic
// read and Date.now() made the offset that much too large, and a trigger's spawn came out at
// -1.87 ms (the spawn with posix_spawn is ~3 ms, no longer far above such an error).
function offsetMs(): number {
  let best: { offset: number; slack: number } | undefined;
  for (let i = 0; i < MAX_TRIES; i++) {
    const before = Date.now();
    let last = monotonicMs();
    for (;;) {
      const t = monotonicMs();
      const now = Date.now();
      const after = monotonicMs();
      if (now === before) {
        last = after;
        continue;
      }
      const slack = Math.max(t - last, after - t);
      if (slack < TIGHT_MS) return now - t;
      if (!best || slack < best.slack) best = { offset: now - t, slack };
      break;
    }
  }
  return best!.offset;
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
