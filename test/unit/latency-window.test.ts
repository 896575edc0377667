// The window of step durations the status shows (src/latency-window.ts): percentiles by nearest
// rank, the oldest samples dropped past the window, steps a run skipped left out.

import { describe, expect, it } from "vitest";
import { LatencyWindow } from "../../src/latency-window.js";

describe("LatencyWindow", () => {
  it("gives each step's median, 99th percentile and maximum, by nearest rank", () => {
    const w = new LatencyWindow(["a", "b"] as const, 100);
    for (let i = 1; i <= 100; i++) w.add({ a: i, b: 1000 - i });
    const [a, b] = w.summary().steps;
    expect(a).toEqual({ step: "a", samples: 100, p50: 50, p99: 99, max: 100 });
    expect(b).toEqual({ step: "b", samples: 100, p50: 949, p99: 998, max: 999 });
    expect(w.summary()).toMatchObject({ runs: 100, window: 100 });
  });

  it("keeps only the last `size` samples of a step", () => {
    const w = new LatencyWindow(["a"] as const, 4);
    for (const ms of [500, 400, 1, 2, 3, 4]) w.add({ a: ms });
    expect(w.summary().steps[0]).toEqual({ step: "a", samples: 4, p50: 2, p99: 4, max: 4 });
    expect(w.summary().runs).toBe(6);
  });

  it("leaves out a step a run skipped, or a duration that is not a number; rounds to 0.1 ms; clamps below 0", () => {
    const w = new LatencyWindow(["a", "b"] as const, 8);
    w.add({ a: 1.26 });
    w.add({ a: Number.NaN, b: -3 });
    expect(w.summary().steps).toEqual([
      { step: "a", samples: 1, p50: 1.3, p99: 1.3, max: 1.3 },
      { step: "b", samples: 1, p50: 0, p99: 0, max: 0 },
    ]);
  });

  it("summarises an empty window as zeros, and refuses a window that holds nothing", () => {
    expect(new LatencyWindow(["a"] as const).summary()).toEqual({ runs: 0, window: 256, steps: [{ step: "a", samples: 0, p50: 0, p99: 0, max: 0 }] });
    expect(() => new LatencyWindow(["a"] as const, 0)).toThrow(RangeError);
  });
});
