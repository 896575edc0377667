// The fault soak (docs/faults.md): every fault test file of the normal suite, one after the other,
// the crash trials, hostile inputs, relay restarts and hostile clients at soak size, bounded in
// time. Each test records its case (asked, ran, inputs, lost, doubled, bad accepted, RSS against
// its bound where it has one) in a file; bench/soak-verdict.ts checks them, this script prints one
// row per case and writes bench/results/soak.json (or --out). It fails when any part failed or
// did not run, any case did not report, ran fewer than asked, put nothing through, lost, doubled
// or let in anything, or passed its memory bound. Needs a build (`npm run soak` does it).
//
//   node scripts/soak.mjs [--trials 100] [--bad-inputs 10000] [--relay-restarts 10] [--relay-attack-seconds 60] [--max-minutes 30] [--out FILE]

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    trials: { type: "string", default: "100" },
    "bad-inputs": { type: "string", default: "10000" },
    "relay-restarts": { type: "string", default: "10" },
    "relay-attack-seconds": { type: "string", default: "60" },
    "max-minutes": { type: "string", default: "30" },
    out: { type: "string", default: "bench/results/soak.json" },
  },
});
const trials = positive("trials");
const badInputs = positive("bad-inputs");
const relayRestarts = positive("relay-restarts");
const relayAttackSeconds = positive("relay-attack-seconds");
const deadline = Date.now() + positive("max-minutes") * 60_000;

function positive(name) {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`--${name} must be a positive integer (got ${JSON.stringify(opts[name])})`);
    process.exit(2);
  }
  return n;
}

if (!existsSync(join(ROOT, "dist/daemon/cli/main.js")) || !existsSync(join(ROOT, "dist/bench/soak-verdict.js"))) {
  console.error("dist/ is missing: run `npm run build` first (or `npm run soak`, which builds)");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "tenexd-soak-"));
const figuresFile = join(work, "figures.jsonl");

const { soakVerdict, soakTable } = await import(join(ROOT, "dist/bench/soak-verdict.js"));

// One part per fault test file, whole. `expects`: the cases (recordCase names) its tests must
// record. `reserveMs`: about what the part took on this 2-core machine at these sizes, kept aside
// for it when the crash trials' time is set. The crash trials run last and get what is left:
// past it they start no new trial, and their case fails with "ran N of the M trials asked".
const parts = [
  { name: "durability", file: "test/integration/durable-before-ack.test.ts", reserveMs: 30_000, env: {}, expects: ["durable-before-ack"] },
  {
    name: "bad-input", file: "test/e2e/faults-bad-input.test.ts", reserveMs: 5 * 60_000, env: { TENEXD_BAD_INPUTS: badInputs },
    expects: ["limit-sizes", "bad-input", "oversized-frames"],
  },
  {
    name: "catch-up", file: "test/e2e/offline-catchup.test.ts", reserveMs: 3 * 60_000, env: { TENEXD_RELAY_RESTARTS: relayRestarts },
    expects: ["offline-catchup", "two-relays", "backfill-paging", "relay-restarts"],
  },
  {
    name: "back-fill", file: "test/e2e/faults-backfill.test.ts", reserveMs: 6 * 60_000, env: {},
    expects: ["backfill-stranger-flood", "backfill-own-people", "backfill-cut"],
  },
  {
    name: "damaged-files", file: "test/e2e/faults-corruption.test.ts", reserveMs: 3 * 60_000, env: {},
    expects: ["torn-tail-crash", "middle-line-crash", "torn-tail-clean", "middle-line-clean", "index-deleted", "index-old-schema",
      "index-garbage", "index-refusing", "full-disk"],
  },
  {
    name: "damaged-line", file: "test/e2e/faults-damaged-line.test.ts", reserveMs: 90_000, env: {},
    expects: ["damaged-line-no-relay", "damaged-line-same-length", "damaged-line-relay-holds"],
  },
  { name: "storage", file: "test/e2e/storage-faults.test.ts", reserveMs: 4 * 60_000, env: {}, expects: ["storage-full"] },
  {
    name: "relay-hostile", file: "test/e2e/faults-relay-hostile.test.ts", reserveMs: relayAttackSeconds * 1000 + 120_000,
    env: { TENEXD_RELAY_ATTACK_MS: relayAttackSeconds * 1000 }, expects: ["relay-hostile"],
  },
  { name: "crash", file: "test/e2e/crash-ingest.test.ts", budgeted: true, env: { TENEXD_CRASH_TRIALS: trials }, expects: ["crash-ingest"] },
];

const results = [];
for (const [i, part] of parts.entries()) {
  const left = deadline - Date.now();
  if (left <= 0) {
    results.push({ part: part.name, file: part.file, status: "not run (out of time)", expects: part.expects });
    continue;
  }
  const reserved = parts.slice(i + 1).reduce((sum, p) => sum + (p.reserveMs ?? 0), 0);
  // Only the crash trials have a size that bends to the time; the others run whole, bounded by `left`.
  const budget = part.budgeted ? { TENEXD_SOAK_BUDGET_MS: String(Math.max(0, left - reserved)) } : {};
  console.log(`\n== ${part.name}: ${part.file}${part.budgeted ? ` (new trials for ${Math.round(Number(budget.TENEXD_SOAK_BUDGET_MS) / 1000)} s)` : ""}`);
  const started = Date.now();
  const run = spawnSync("npx", ["vitest", "run", part.file], {
    cwd: ROOT, stdio: "inherit", timeout: left,
    env: { ...process.env, ...stringify(part.env), ...budget, TENEXD_SOAK_OUT: figuresFile },
  });
  results.push({
    part: part.name, file: part.file, expects: part.expects, seconds: Math.round((Date.now() - started) / 1000),
    status: run.status === 0 ? "passed" : run.error ? `stopped: ${run.error.message}` : `failed (exit ${run.status})`,
  });
}

const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
  : [];
rmSync(work, { recursive: true, force: true });

const sum = (name, key) => figures.filter((f) => f.name === name).reduce((s, f) => s + (Number(f[key]) || 0), 0);
const most = (name, key) => Math.max(0, ...figures.filter((f) => f.name === name).map((f) => Number(f[key]) || 0));
// The figures the soak has always printed, for comparison with earlier runs.
const totals = {
  sigkill_trials: sum("crash-ingest", "sigkill_trials"),
  acked_lost: sum("crash-ingest", "acked_lost"),
  duplicates: sum("crash-ingest", "duplicates"),
  conversations_lost: sum("crash-ingest", "conversations_lost"),
  missing_after_catchup: sum("crash-ingest", "missing_after_catchup"),
  bad_inputs_tried: sum("bad-input", "bad_inputs_tried"),
  bad_inputs_accepted: sum("bad-input", "bad_inputs_accepted"),
  daemon_crashes: sum("bad-input", "daemon_crashes"),
  relay_restarts: sum("relay-restarts", "relay_restarts"),
  relay_restart_lost: sum("relay-restarts", "lost"),
  relay_restart_doubled: sum("relay-restarts", "doubled"),
  relay_hostile_clients: sum("relay-hostile", "hostile_clients"),
  relay_hostile_seconds: sum("relay-hostile", "attack_ms") / 1000,
  relay_hostile_bytes_sent: sum("relay-hostile", "bytes_sent"),
  relay_hostile_daemon_rss_max_mb: most("relay-hostile", "rss_max_mb"),
  relay_hostile_daemon_rss_after_mb: most("relay-hostile", "rss_after_mb"),
  relay_hostile_relay_rss_max_mb: most("relay-hostile", "relay_rss_max_mb"),
};
const verdict = soakVerdict(results, figures);
const total = (key) => verdict.rows.reduce((s, r) => s + r[key], 0);

console.log("\n== soak: one row per case");
console.log(soakTable(verdict.rows));
console.log(`\n${verdict.rows.length} cases, ${total("inputs")} inputs: events lost ${total("lost")}, doubled ${total("doubled")}, bad accepted ${total("badAccepted")}`);
for (const [k, v] of Object.entries(totals)) console.log(`${k.padEnd(34)} ${v}`);
for (const r of results) console.log(`${r.part.padEnd(16)} ${r.status}${r.seconds === undefined ? "" : ` (${r.seconds} s)`}`);
for (const f of verdict.failures) console.log(`FAIL: ${f}`);
console.log(verdict.passed ? "soak passed" : "soak FAILED");

const out = resolve(ROOT, opts.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({
  date: new Date().toISOString(), passed: verdict.passed, failures: verdict.failures,
  asked: { trials, badInputs, relayRestarts, relayAttackSeconds, maxMinutes: Number(opts["max-minutes"]) },
  events_lost: total("lost"), doubled: total("doubled"), bad_accepted: total("badAccepted"), inputs: total("inputs"),
  cases: verdict.rows, totals, parts: results, figures,
}, null, 2)}\n`);
console.log(`written ${out}`);
process.exit(verdict.passed ? 0 : 1);

function stringify(env) {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}
