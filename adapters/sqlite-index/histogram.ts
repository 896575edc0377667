// Median and mean of integer samples kept as a histogram (value → how many times it occurred).

import type { Summary } from "../../src/read-model.js";

/** `bins` sorted by value ascending; an even count takes the mean of the two middle samples. */
export function summarize(bins: readonly (readonly [value: number, count: number])[]): Summary {
  let count = 0;
  let sum = 0;
  for (const [value, c] of bins) {
    count += c;
    sum += value * c;
  }
  if (count === 0) return { count };
  return { count, median: (sampleAt(bins, (count - 1) >> 1) + sampleAt(bins, count >> 1)) / 2, mean: sum / count };
}

/** The i-th sample (0-based) in sorted order. */
function sampleAt(bins: readonly (readonly [number, number])[], i: number): number {
  let seen = 0;
  for (const [value, c] of bins) {
    seen += c;
    if (i < seen) return value;
  }
  throw new RangeError(`sample ${i} out of range ${seen}`);
}
