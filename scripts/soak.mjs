// The fault soak (docs/faults.md): the fault tests of the normal suite, at soak size and bounded
// in time: SIGKILL trials during ingest (test/e2e/crash-ingest.test.ts), hostile input through a
// real relay and a relay that checks nothing (faults-bad-input), a relay killed and restarted
// mid-stream (offline-catchup), and 100 hostile clients on the embedded relay for a longer time
// (faults-relay-hostile: the daemon's RSS must stay <= 200 MB). Each test appends its figures to a
// file; this script sums them, prints them and writes bench/results/soak.json. Needs a build
// (`npm run soak` does it).
//
//   node scripts/soak.mjs [--trials 100] [--bad-inputs 10000] [--relay-restarts 10] [--relay-attack-seconds 60] [--max-minutes 20]

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

if (!existsSync(join(ROOT, "dist/daemon/daemon.js"))) {
  console.error("dist/ is missing: run `npm run build` first (or `npm run soak`, which builds)");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "tenexd-soak-"));
const figuresFile = join(work, "figures.jsonl");

// The crash trials get most of the time; the other parts have fixed sizes.
const parts = [
  { name: "crash", file: "test/e2e/crash-ingest.test.ts", share: 0.6, env: { TENEXD_CRASH_TRIALS: trials } },
  { name: "bad-input", file: "test/e2e/faults-bad-input.test.ts", share: 0.25, env: { TENEXD_BAD_INPUTS: badInputs } },
  { name: "relay-faults", file: "test/e2e/offline-catchup.test.ts", filter: "relay killed", share: 0.15, env: { TENEXD_RELAY_RESTARTS: relayRestarts } },
  // A fixed size: the attack's time (and the daemon's start and checks around it) is kept for it.
  { name: "relay-hostile", file: "test/e2e/faults-relay-hostile.test.ts", share: 0, reserveMs: relayAttackSeconds * 1000 + 120_000,
    env: { TENEXD_RELAY_ATTACK_MS: relayAttackSeconds * 1000 } },
];

const results = [];
for (const [i, part] of parts.entries()) {
  const left = deadline - Date.now();
  if (left <= 0) {
    results.push({ part: part.name, status: "not run (out of time)" });
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
  results.push({ part: part.name, status: run.status === 0 ? "passed" : run.error ? `stopped: ${run.error.message}` : `failed (exit ${run.status})` });
}

const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
  : [];
rmSync(work, { recursive: true, force: true });

const sum = (name, key) => figures.filter((f) => f.name === name).reduce((s, f) => s + (Number(f[key]) || 0), 0);
const most = (name, key) => Math.max(0, ...figures.filter((f) => f.name === name).map((f) => Number(f[key]) || 0));
const seen = (name) => figures.some((f) => f.name === name);
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
const clean = totals.acked_lost === 0 && totals.duplicates === 0 && totals.conversations_lost === 0 && totals.missing_after_catchup === 0 &&
  totals.bad_inputs_accepted === 0 && totals.daemon_crashes === 0 && totals.relay_restart_lost === 0 && totals.relay_restart_doubled === 0 &&
  totals.relay_hostile_daemon_rss_max_mb <= RELAY_RSS_LIMIT_MB && totals.relay_hostile_daemon_rss_after_mb <= RELAY_RSS_LIMIT_MB;
const complete = seen("crash-ingest") && seen("bad-input") && seen("relay-restarts") && seen("relay-hostile");
const passed = clean && complete && results.every((r) => r.status === "passed");

console.log("\n== soak");
for (const [k, v] of Object.entries(totals)) console.log(`${k.padEnd(24)} ${v}`);
for (const r of results) console.log(`${r.part.padEnd(24)} ${r.status}`);
console.log(passed ? "soak passed" : "soak FAILED");

const out = join(ROOT, "bench/results/soak.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({
  date: new Date().toISOString(), passed,
  asked: { trials, badInputs, relayRestarts, relayAttackSeconds, maxMinutes: Number(opts["max-minutes"]) },
  totals, parts: results, figures,
}, null, 2)}\n`);
console.log(`written ${out}`);
process.exit(passed ? 0 : 1);

function stringify(env) {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}
