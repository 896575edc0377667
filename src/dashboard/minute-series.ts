// Per-minute counts of what the engine takes in (accepted, rejected by reason) over the last
// hour, for the dashboard's charts: a bounded ring of the cumulative counters as sampled at the
// start of each minute; a minute's count is the difference between two samples.

export interface CounterSample {
  accepted: number;
  rejected: Readonly<Record<string, number>>;
}

export interface MinuteRing {
  /** Oldest first; at most `MINUTES + 1` samples, one per minute (epoch minute). */
  samples: { minute: number; counters: CounterSample }[];
}

export const MINUTES = 60;

export interface MinutePoint {
  /** Epoch ms at the start of the minute. */
  at: number;
  accepted: number;
  rejected: Record<string, number>;
}

export const emptyRing = (): MinuteRing => ({ samples: [] });

/** Records `counters` as they stood at `now` (epoch ms): one sample per minute, the first taken in it. */
export function sample(ring: MinuteRing, now: number, counters: CounterSample): void {
  const minute = Math.floor(now / 60_000);
  const last = ring.samples.at(-1);
  if (last && last.minute >= minute) return;
  ring.samples.push({ minute, counters: { accepted: counters.accepted, rejected: { ...counters.rejected } } });
  while (ring.samples.length > MINUTES + 1) ring.samples.shift();
}

/**
 * The last hour at `now`, one point per minute, oldest first, the last one the minute under way
 * (counted up to `current`). A minute with no sample counts 0; a gap between two samples (the
 * daemon was busy or stopped) counts at the minute it starts.
 */
export function perMinute(ring: MinuteRing, now: number, current: CounterSample): MinutePoint[] {
  const counted = new Map<number, Omit<MinutePoint, "at">>();
  const s = ring.samples;
  for (let i = 0; i < s.length; i++) {
    const next = i + 1 < s.length ? s[i + 1]!.counters : current;
    counted.set(s[i]!.minute, difference(s[i]!.counters, next));
  }
  const last = Math.floor(now / 60_000);
  const out: MinutePoint[] = [];
  for (let m = last - MINUTES + 1; m <= last; m++) out.push({ at: m * 60_000, ...(counted.get(m) ?? { accepted: 0, rejected: {} }) });
  return out;
}

function difference(from: CounterSample, to: CounterSample): Omit<MinutePoint, "at"> {
  const rejected: Record<string, number> = {};
  for (const [reason, n] of Object.entries(to.rejected)) {
    const d = n - (from.rejected[reason] ?? 0);
    if (d > 0) rejected[reason] = d;
  }
  return { accepted: Math.max(0, to.accepted - from.accepted), rejected };
}
