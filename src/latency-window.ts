// How long the steps of a path took, over its last runs: each run adds one duration per step
// (ms), and the summary gives each step's median, 99th percentile and maximum over the window.
// The status shows it for the way from a trigger to its agent's process and from the agent's
// answer to the relays (docs/performance.md, "From a message to its agent"), so an operator
// sees which step a slow start waits on. Bounded: `size` samples a step, the oldest dropped.

export interface StepLatency {
  step: string;
  /** Samples in the window. */
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LatencySummary {
  /** Runs added since start (the window holds the last `window` of them). */
  runs: number;
  window: number;
  steps: StepLatency[];
}

export class LatencyWindow<S extends string> {
  private readonly rings: Map<S, { values: Float64Array; next: number; filled: number }>;
  private runs = 0;

  constructor(readonly steps: readonly S[], private readonly size = 256) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);
    this.rings = new Map(steps.map((s) => [s, { values: new Float64Array(size), next: 0, filled: 0 }]));
  }

  /** One run: a duration for each step it went through (a step it skipped is left out). */
  add(run: Partial<Record<S, number>>): void {
    this.runs++;
    for (const [step, ms] of Object.entries(run) as [S, number | undefined][]) {
      const ring = this.rings.get(step);
      if (!ring || ms === undefined || !Number.isFinite(ms)) continue;
      ring.values[ring.next] = Math.max(0, ms);
      ring.next = (ring.next + 1) % this.size;
      ring.filled = Math.min(this.size, ring.filled + 1);
    }
  }

  summary(): LatencySummary {
    return {
      runs: this.runs,
      window: this.size,
      steps: this.steps.map((step) => {
        const ring = this.rings.get(step)!;
        const sorted = ring.values.slice(0, ring.filled).sort();
        return { step, samples: ring.filled, p50: rank(sorted, 0.5), p99: rank(sorted, 0.99), max: rank(sorted, 1) };
      }),
    };
  }
}

// The nearest-rank percentile, rounded to 0.1 ms; 0 for no samples.
function rank(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const v = sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return Math.round(v * 10) / 10;
}
