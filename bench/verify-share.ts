// What verification costs a path, by difference: the same path's runs with the daemon's signature
// checks switched off (bench/unverified-daemon.ts), each run right after a verified one. Issue 18:
// with every signature verified, a path keeps ≥ 75% of its rate without verification (the
// checks run where the cores are, not in the way of the rest).

import { median, medianRun, round } from "./bench-context.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";

interface Rated {
  rate: number;
}

/**
 * `<prefix>_noverify_200x50_evps` (the unverified runs' median) and `<prefix>_verify_ratio` (the
 * median of each verified run's rate over its unverified partner's); `what`: the verified runs.
 */
export function verifyShareFigures(prefix: string, verified: readonly Rated[], unverified: readonly Rated[], what: string): Figure[] {
  if (verified.length !== unverified.length || verified.length === 0) throw new Error(`${prefix}: ${verified.length} verified runs against ${unverified.length} unverified`);
  const { run, spread } = medianRun(unverified);
  const ratio = median(verified.map((r, i) => r.rate / unverified[i]!.rate));
  const pairs = verified.map((r, i) => `${r.rate}/${unverified[i]!.rate}`).join(", ");
  const ratioName = `${prefix}_verify_ratio`;
  return [{
    name: `${prefix}_noverify_200x50_evps`, value: run.rate, unit: "ev/s",
    note: `as ${what}, with the daemon's signature checks switched off (bench/unverified-daemon.ts: the daemon's own code, ` +
      `every check answered "ok" unseen), each run right after a verified one${spread ? `; ${spread}` : ""}`,
  }, {
    name: ratioName, value: round(ratio, 2), unit: "× unverified", goal: goalText(ratioName),
    note: `the verified rate ÷ the unverified rate, each verified run paired with the unverified run right after it; ` +
      `median of the pairs' ratios (verified/unverified ev/s: ${pairs})`,
  }];
}
