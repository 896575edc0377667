// The fault soak (docs/faults.md): the fault tests of the normal suite, at soak size and bounded
// in time: SIGKILL trials during ingest (test/e2e/crash-ingest.test.ts), hostile input through a
// real relay and a relay that checks nothing (faults-bad-input), downtime and a relay killed and
// restarted mid-stream (offline-catchup), a full disk (faults-corruption), durability before
// acknowledgement (test/integration/durable-before-ack.test.ts), and 100 hostile clients on the
// embedded relay for a longer time (faults-relay-hostile: the daemon's RSS must stay <= 200 MB).
// Each test appends its figures to a file; this script checks them (bench/soak-verdict.ts: asked
// vs ran, lost, doubled, accepted), prints one row per case and writes bench/results/soak.json
// (or --out). It fails when any part failed, any case ran less than asked, or anything was lost,
// doubled or let in. Needs a build (`npm run soak` does it).
//
//   node scripts/soak.mjs [--trials 100] [--bad-inputs 10000] [--relay-restarts 10] [--relay-attack-seconds 60] [--max-minutes 20] [--out FILE]

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
    "max-minutes": { type: "string", default: "20" },
    out: { type: "string", default: "bench/results/soak.json" },
  },
});
const trials = positive("trials");
const badInputs = positive("bad-inputs");
const relayRestarts = positive("relay-restarts");
const relayAttackSeconds = positive("relay-attack-seconds");
// The daemon's resident memory while 100 clients send frames at and over the relay's limits.
const RELAY_RSS_LIMIT_MB = 200;
const deadline = Date.now() + positive("max-minutes") * 60_000;

function positive(name) {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`--${name} must be a positive integer (got ${JSON.stringify(opts[name])})`);
    process.exit(2);
  }
  return n;
}

if (!existsSync(join(ROOT, "dist/daemon/daemon.js")) || !existsSync(join(ROOT, "dist/bench/soak-verdict.js"))) {
  console.error("dist/ is missing: run `npm run build` first (or `npm run soak`, which builds)");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "tenexd-soak-"));
const figuresFile = join(work, "figures.jsonl");

const { soakVerdict, soakTable } = await import(join(ROOT, "dist/bench/soak-verdict.js"));

// The crash trials get most of the time; the other parts have fixed sizes. `expects`: the figures
// (recordFigures names) each part's tests must record.
const parts = [
  { name: "crash", file: "test/e2e/crash-ingest.test.ts", share: 0.55, env: { TENEXD_CRASH_TRIALS: trials }, expects: ["crash-ingest"] },
  { name: "bad-input", file: "test/e2e/faults-bad-input.test.ts", share: 0.22, env: { TENEXD_BAD_INPUTS: badInputs }, expects: ["bad-input"] },
  {
    name: "relay-faults", file: "test/e2e/offline-catchup.test.ts", share: 0.15, env: { TENEXD_RELAY_RESTARTS: relayRestarts },
    expects: ["relay-restarts", "offline-catchup"],
  },
  { name: "full-disk", file: "test/e2e/faults-corruption.test.ts", filter: "a full disk", share: 0.06, env: {}, expects: ["full-disk"] },
  // A fixed size: the attack's time (and the daemon's start and checks around it) is kept for it.
  { name: "relay-hostile", file: "test/e2e/faults-relay-hostile.test.ts", share: 0, reserveMs: relayAttackSeconds * 1000 + 120_000,
    env: { TENEXD_RELAY_ATTACK_MS: relayAttackSeconds * 1000 }, expects: [] },
  { name: "durability", file: "test/integration/durable-before-ack.test.ts", share: 0.02, env: {}, expects: ["durable-before-ack"] },
];

const results = [];
for (const [i, part] of parts.entries()) {
  const left = deadline - Date.now();
  if (left <= 0) {
    results.push({ part: part.name, status: "not run (out of time)", expects: part.expects });
    continue;
  }
  const later = parts.slice(i + 1).reduce((sum, p) => sum + p.share, 0);
  const reserved = parts.slice(i + 1).reduce((sum, p) => sum + (p.reserveMs ?? 0), 0);
  const budgetMs = part.share > 0 ? Math.floor(Math.max(0, left - reserved) * (part.share / (part.share + later))) : left;
  console.log(`\n== ${part.name}: ${part.file} (budget ${Math.round(budgetMs / 1000)} s)`);
  const args = ["vitest", "run", part.file, ...(part.filter ? ["-t", part.filter] : [])];
  const run = spawnSync("npx", args, {
    cwd: ROOT, stdio: "inherit", timeout: left,
    env: { ...process.env, ...stringify(part.env), TENEXD_SOAK_BUDGET_MS: String(budgetMs), TENEXD_SOAK_OUT: figuresFile },
  });
  results.push({
    part: part.name, expects: part.expects,
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
// The hostile clients record no per-case row yet: their RSS bound and their having run are checked here.
if (!figures.some((f) => f.name === "relay-hostile")) verdict.failures.push("relay-hostile: no figures (its test stopped before recording them)");
for (const k of ["relay_hostile_daemon_rss_max_mb", "relay_hostile_daemon_rss_after_mb"]) {
  if (totals[k] > RELAY_RSS_LIMIT_MB) verdict.failures.push(`relay-hostile: ${k} ${totals[k]} > ${RELAY_RSS_LIMIT_MB}`);
}
verdict.passed = verdict.passed && verdict.failures.length === 0;
const eventsLost = verdict.rows.reduce((s, r) => s + r.lost, 0);

console.log("\n== soak: one row per case");
console.log(soakTable(verdict.rows));
console.log(`\nevents lost across every case: ${eventsLost}`);
for (const [k, v] of Object.entries(totals)) console.log(`${k.padEnd(24)} ${v}`);
for (const r of results) console.log(`${r.part.padEnd(24)} ${r.status}`);
for (const f of verdict.failures) console.log(`FAIL: ${f}`);
console.log(verdict.passed ? "soak passed" : "soak FAILED");

const out = resolve(ROOT, opts.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({
  date: new Date().toISOString(), passed: verdict.passed, failures: verdict.failures,
  asked: { trials, badInputs, relayRestarts, relayAttackSeconds, maxMinutes: Number(opts["max-minutes"]) },
  events_lost: eventsLost, cases: verdict.rows, totals, parts: results, figures,
}, null, 2)}\n`);
console.log(`written ${out}`);
process.exit(verdict.passed ? 0 : 1);

function stringify(env) {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}
