// The system's real-time clock (what `date +%s%N` in another process reads) in milliseconds, with
// the monotonic clock's resolution. Not performance.timeOrigin + now(): a process sets its origin
// from two clock reads at its start, and 8 Node processes started together on this machine under
// load had origins up to 12-20 ms apart (most runs: under 0.1 ms). Here the offset between the two
// clocks is measured once: Date.now() - monotonic lies in (offset - 1, offset] ms, and its maximum
// over a few milliseconds of reads is the offset to a few microseconds.

const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

function offsetMs(): number {
  let best = -Infinity;
  const until = monotonicMs() + 5;
  for (let t = monotonicMs(); t < until; t = monotonicMs()) best = Math.max(best, Date.now() - t);
  return best;
}

const OFFSET = offsetMs();

/** Now on the real-time clock, ms since the epoch, sub-millisecond. */
export const realtimeMs = (): number => monotonicMs() + OFFSET;
