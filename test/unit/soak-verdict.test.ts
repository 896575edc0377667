// The soak's verdict (bench/soak-verdict.ts): it fails on every way a soak can fall short, not
// only on a loss: fewer trials than asked, a part that never reported, a case that tested nothing.

import { describe, expect, it } from "vitest";
import { soakTable, soakVerdict, type PartOutcome } from "../../bench/soak-verdict.js";

const crash = (over: Record<string, unknown> = {}) => ({
  name: "crash-ingest", case: "SIGKILL during ingest", asked: 100, ran: 100, unit: "trials", inputs: 5_000, lost: 0, doubled: 0, ...over,
});
const passed: PartOutcome[] = [{ part: "crash", status: "passed", expects: ["crash-ingest"] }];

describe("soak verdict", () => {
  it("passes a soak that ran what was asked and lost nothing, one row per case", () => {
    const v = soakVerdict(passed, [crash(), { name: "crash-ingest-extra", sigkill_trials: 3 }]);
    expect(v.failures).toEqual([]);
    expect(v.passed).toBe(true);
    expect(v.rows.map((r) => [r.case, r.asked, r.ran, r.inputs, r.lost])).toEqual([["SIGKILL during ingest", 100, 100, 5_000, 0]]);
    expect(soakTable(v.rows)).toMatch(/SIGKILL during ingest\s+trials\s+100\s+100\s+5000\s+0/);
  });

  it("fails when fewer trials ran than asked, and says asked and ran", () => {
    const v = soakVerdict(passed, [crash({ ran: 37 })]);
    expect(v.passed).toBe(false);
    expect(v.failures).toEqual(["crash-ingest: ran 37 of the 100 trials asked"]);
  });

  it("fails on a loss, a double, a hostile input accepted, a crash, or a case that put nothing through", () => {
    const v = soakVerdict(passed, [crash({ lost: 1, doubled: 2, bad_accepted: 3, crashes: 1, inputs: 0 })]);
    expect(v.failures).toEqual([
      "crash-ingest: no input went through: the case tested nothing",
      "crash-ingest: 1 events lost", "crash-ingest: 2 events doubled",
      "crash-ingest: 3 hostile inputs accepted", "crash-ingest: the daemon crashed 1 times",
    ]);
  });

  it("fails on a case over its RSS bound, or with a bound and no RSS recorded; shows RSS and bound in the table", () => {
    const hostile = (over: Record<string, unknown>) => ({ ...crash({ name: "relay-hostile", case: "hostile clients" }), rss_limit_mb: 200, ...over });
    const parts: PartOutcome[] = [{ part: "relay", status: "passed", expects: ["relay-hostile"] }];
    const within = soakVerdict(parts, [hostile({ rss_max_mb: 92 })]);
    expect(within.failures).toEqual([]);
    expect(soakTable(within.rows)).toMatch(/hostile clients .* 92 \(200\)$/m);
    expect(soakVerdict(parts, [hostile({ rss_max_mb: 201 })]).failures).toEqual(["relay-hostile: RSS reached 201 MB, over its 200 MB bound"]);
    expect(soakVerdict(parts, [hostile({})]).failures).toEqual(["relay-hostile: has an RSS bound but no RSS recorded"]);
    expect(soakTable(soakVerdict(passed, [crash()]).rows)).toMatch(/0\s+-$/m);
  });

  it("fails when a part failed, did not run, or never recorded its figures", () => {
    const parts: PartOutcome[] = [
      { part: "crash", status: "failed (exit 1)", expects: ["crash-ingest"] },
      { part: "relay-faults", status: "not run (out of time)", expects: ["relay-restarts"] },
    ];
    const v = soakVerdict(parts, [crash()]);
    expect(v.failures).toEqual([
      "crash: failed (exit 1)",
      "relay-faults: not run (out of time)",
      "relay-faults: no figures from relay-restarts (its test stopped before recording them)",
    ]);
    expect(soakVerdict([], []).passed).toBe(false);
  });

  it("fails on figures whose counts are missing rather than reading them as zero", () => {
    const v = soakVerdict(passed, [crash({ lost: undefined, ran: "100" })]);
    expect(v.failures).toEqual([
      "crash-ingest: ran, lost not recorded as counts",
      "crash: no figures from crash-ingest (its test stopped before recording them)",
    ]);
  });
});
