// `npm run bench [-- --quick] [-- --only name,name] [-- --cpu-prof DIR]` (`-- --help`): runs the benchmarks
// of bench/goals.ts and the issues, prints each figure beside its goal, its machine limit and
// TENEX's figure, and writes bench/results/latest.{json,md}. The machine limits run first so
// that every later figure can be printed beside the limit measured in the same run.
//   --quick     about two minutes: the 1,000,000-event figures are left out (and said so)
//   --only      just the benchmarks producing these figures (and what they need); latest.* untouched
//   --cpu-prof  every daemon child process writes a CPU profile into DIR

import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { benchAgentContext } from "./agent-context.js";
import { benchContext, type BenchContext } from "./bench-context.js";
import { benchCacheRss } from "./cache-rss.js";
import { benchCatchup } from "./catchup.js";
import { benchCliWall } from "./cli-wall.js";
import { benchDashboard } from "./dashboard.js";
import { setDaemonNodeArgs } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { benchFsyncLimit } from "./fsync-limit.js";
import { benchIndexFeederGap } from "./index-feeder-gap.js";
import { benchIndexQueries } from "./index-queries.js";
import { benchIngest } from "./ingest.js";
import { benchLiveIngest } from "./live-ingest.js";
import { benchLivePath } from "./live-path.js";
import { benchLogAppend } from "./log-append.js";
import { benchNdkDelivery } from "./ndk-delivery.js";
import { benchRelayIngest, openRelayScenario, type RelayScenario } from "./relay-ingest.js";
import { benchRelayPlacement } from "./relay-placement.js";
import { consoleTable, toRows, writeResults, type RunInfo } from "./report.js";
import { benchRestart } from "./restart.js";
import { benchSqliteLimit } from "./sqlite-limit.js";
import { storeCached } from "./store-cache.js";
import { benchTriggerLatency } from "./trigger-latency.js";
import { benchVerifyDifferential } from "./verify-differential.js";
import { benchVerifyLimit } from "./verify-limit.js";
import { datasetCached, SHAPES } from "./workload.js";

const RESULTS = resolve(import.meta.dirname, "../../bench/results");
// Signing the 1,000,000-event set, once (then cached): ~2,000 ev/s per core with nostr-wasm.
const SIGN_1M_S = 500;
// Filling the 1,000,000-event store through the log and the index, once per code version.
const FILL_1M_S = 420;

interface State {
  figures: Figure[];
  scenario?: RelayScenario;
}

interface Task {
  id: string;
  /** Seconds, quick and full (as measured on the 2-core machine, 2026-11-27: for the progress lines only). */
  est: [number, number];
  /** Figure names (or prefixes ending in `_`) it produces, for --only. */
  produces: string[];
  needs?: string[];
  fullOnly?: string;
  quickSkip?: string;
  run(ctx: BenchContext, s: State): Promise<Figure[]>;
}

const value = (s: State, name: string) => s.figures.find((f) => f.name === name)?.value;

const TASKS: Task[] = [
  {
    id: "verify-limit", est: [8, 8], produces: ["verify_"],
    run: async (ctx) => withLimit(await benchVerifyLimit(), "verify_limit_evps", (v) => (ctx.limits.verifyEvps = v)),
  },
  { id: "verify-differential", est: [0, 20], produces: ["verify_differential_"], quickSkip: "verify_differential_* (100,000 events through both verifiers): full run only", run: () => benchVerifyDifferential() },
  {
    id: "fsync-limit", est: [2, 2], produces: ["fsync_"],
    run: async (ctx) => withLimit(await benchFsyncLimit(), "fsync_append_limit_lps", (v) => (ctx.limits.fsyncLps = v)),
  },
  {
    id: "sqlite-limit", est: [5, 5], produces: ["sqlite_insert_limit_rps"],
    run: async (ctx) => withLimit(await benchSqliteLimit(), "sqlite_insert_limit_rps", (v) => (ctx.limits.sqliteRps = v)),
  },
  { id: "index-feeder-gap", est: [3, 3], produces: ["index_feeder_gap_"], run: () => benchIndexFeederGap() },
  { id: "ingest", est: [8, 15], produces: ["ingest_1x5000_", "ingest_200x50_"], run: (ctx) => benchIngest(ctx) },
  { id: "live-ingest", est: [10, 30], produces: ["ingest_live_", "ingest_main_cpu_"], run: (ctx) => benchLiveIngest(ctx) },
  { id: "live-path", est: [45, 90], produces: ["live_path_"], run: (ctx) => benchLivePath(ctx) },
  { id: "trigger-latency", est: [90, 90], produces: ["trigger_spawn_", "trigger_input_", "answer_to_relay_"], run: (ctx) => benchTriggerLatency(ctx) },
  {
    id: "relay-ingest", est: [8, 25], produces: ["ingest_relay_"],
    run: async (ctx, s) => {
      s.scenario = await openRelayScenario(ctx);
      return benchRelayIngest(ctx, s.scenario);
    },
  },
  {
    id: "catchup", est: [8, 35], produces: ["catchup_"], needs: ["ingest", "relay-ingest"],
    run: async (ctx, s) => {
      try {
        return await benchCatchup(ctx, s.scenario!, value(s, "ingest_200x50_evps"));
      } finally {
        await s.scenario?.close();
        s.scenario = undefined;
      }
    },
  },
  { id: "restart-10k", est: [10, 15], produces: ["restart_10k_", "status_10k_"], run: (ctx) => benchRestart(ctx, "10k") },
  { id: "cli-wall", est: [8, 8], produces: ["cli_"], run: (ctx) => benchCliWall(ctx) },
  { id: "agent-context", est: [3, 3], produces: ["agent_context_"], run: () => benchAgentContext() },
  {
    id: "cache-rss", est: [0, 150], produces: ["cache_rss_", "cache_heap_"],
    quickSkip: "cache_rss_*, cache_heap_* (1,000 events of 100 KB, four daemon starts): full run only",
    run: (ctx) => benchCacheRss(ctx),
  },
  {
    id: "log-append", est: [0, 5], produces: ["log_append_"], quickSkip: "log_append_* (FileConversationLog alone): full run only",
    run: () => benchLogAppend(),
  },
  {
    id: "ndk-delivery", est: [0, 8], produces: ["relay_delivery_"], quickSkip: "relay_delivery_* (NDK delivery): full run only",
    run: () => benchNdkDelivery(),
  },
  {
    id: "relay-placement", est: [0, 90], produces: ["relay_ready_", "relay_in_process_", "relay_hostile_"],
    quickSkip: "relay_* placement (the embedded relay in its own process and inside the daemon, 100 hostile clients): full run only",
    run: (ctx) => benchRelayPlacement(ctx.progress),
  },
  {
    id: "index-queries", est: [0, 70], produces: ["unread_", "inbox_", "stats_", "index_build_"],
    quickSkip: "unread_1m_ms, inbox_1m_ms, stats_1m_ms, index_build_1m_msgps (1,000,000 indexed messages): full run only",
    run: () => benchIndexQueries({ messages: 1_000_000 }),
  },
  {
    id: "dashboard-10k", est: [10, 10], produces: ["dashboard_api_10k_", "dashboard_overview_paint_10k_", "dashboard_event_p50_10k_", "dashboard_event_p99_10k_"],
    run: (ctx) => benchDashboard(ctx, "10k"),
  },
  {
    id: "restart-1m", est: [0, 30], produces: ["restart_1m_", "status_1m_"],
    fullOnly: "restart_1m_*, status_1m_ms (1,000,000 stored events): full run only",
    run: (ctx) => benchRestart(ctx, "1m"),
  },
  {
    id: "dashboard-1m", est: [0, 150], produces: ["dashboard_api_1m_", "dashboard_overview_paint_1m_", "dashboard_event_p50_1m_", "dashboard_event_p99_1m_"],
    fullOnly: "dashboard_*_1m (the dashboard on 1,000,000 stored events, filled for the run): full run only",
    run: (ctx) => benchDashboard(ctx, "1m"),
  },
];

function withLimit(figures: Figure[], name: string, set: (v: number) => void): Figure[] {
  const f = figures.find((x) => x.name === name);
  if (f) set(f.value);
  return figures;
}

const USAGE = `usage: npm run bench -- [--quick] [--only NAME,...] [--cpu-prof DIR]
  --quick     about two minutes: the 1,000,000-event figures are left out (and said so)
  --only      just these benchmarks (and what they need): each NAME a task, or a figure one
              produces (a task's own prefixes too, such as ingest_live_); bench/results/latest.*
              are left as they were.
              Tasks: ${TASKS.map((t) => t.id).join(", ")}
  --cpu-prof  every daemon child process writes a CPU profile into DIR`;

class UsageError extends Error {}

function parseArgs(argv: string[]) {
  const args: { quick: boolean; only?: string[]; cpuProf?: string } = { quick: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") {
      args.quick = true;
      continue;
    }
    if (arg !== "--only" && arg !== "--cpu-prof") throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = argv[++i];
    if (value === undefined || value.startsWith("--")) throw new UsageError(`${arg} needs a value`);
    if (arg === "--only") args.only = value.split(",").filter(Boolean);
    else args.cpuProf = value;
  }
  // A name that matches nothing used to run only the machine limits, silently.
  const unmatched = (args.only ?? []).filter((n) => !TASKS.some((t) => producesAny(t, [n])));
  if (unmatched.length > 0) throw new UsageError(`--only: no benchmark produces ${unmatched.join(", ")}`);
  return args;
}

const producesAny = (t: Task, names: string[]) =>
  names.some((n) => n === t.id || t.produces.some((p) => (p.endsWith("_") ? n.startsWith(p) : n === p)));

/** The tasks to run, in order: the machine limits always, then what --only asks for and needs. */
function select(quick: boolean, only: string[] | undefined): { tasks: Task[]; skipped: string[] } {
  const wanted = new Set(TASKS.filter((t) => t.id.endsWith("-limit") || !only || producesAny(t, only)).map((t) => t.id));
  for (const t of TASKS) if (wanted.has(t.id)) for (const n of t.needs ?? []) wanted.add(n);
  const skipped: string[] = [];
  const tasks = TASKS.filter((t) => {
    if (!wanted.has(t.id)) return false;
    const skip = quick ? (t.fullOnly ?? t.quickSkip) : undefined;
    if (skip) skipped.push(`${skip} (quick mode)`);
    return !skip;
  });
  return { tasks, skipped };
}

const fmtS = (s: number) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`bench: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (args.cpuProf) setDaemonNodeArgs(["--cpu-prof", `--cpu-prof-dir=${resolve(args.cpuProf)}`]);
  const { tasks, skipped } = select(args.quick, args.only);
  const estimate = (t: Task) => t.est[args.quick ? 0 : 1];
  let remaining = tasks.reduce((s, t) => s + estimate(t), 0);
  if (tasks.some((t) => t.id === "restart-1m")) {
    if (!(await datasetCached(SHAPES.million))) {
      remaining += SIGN_1M_S;
      console.log(`The 1,000,000-event set is not cached yet: signing it takes ~${fmtS(SIGN_1M_S)} on this machine (once).`);
    }
    if (!storeCached(SHAPES.million)) {
      remaining += FILL_1M_S;
      console.log(`The 1,000,000-event store is not cached for this code yet: filling it takes ~${fmtS(FILL_1M_S)} (once per code version).`);
    }
  }
  console.log(`${args.quick ? "Quick" : "Full"} run: ${tasks.length} benchmarks, about ${fmtS(remaining)}.`);

  const started = performance.now();
  const loads = [loadavg()[0]!];
  const ctx = benchContext(args.quick, (msg) => console.log(`      ${msg}`));
  const state: State = { figures: [] };
  const failed: string[] = [];
  for (const [i, t] of tasks.entries()) {
    loads.push(loadavg()[0]!);
    console.log(`[${i + 1}/${tasks.length}] ${t.id} … est. ${fmtS(estimate(t))} (about ${fmtS(remaining)} left)`);
    const t0 = performance.now();
    try {
      const figures = await t.run(ctx, state);
      state.figures.push(...figures);
      for (const f of figures) console.log(`      ${f.name} = ${f.value} ${f.unit}`);
    } catch (err) {
      failed.push(`${t.id}: ${err instanceof Error ? err.message : String(err)}`);
      console.log(`      FAILED: ${failed[failed.length - 1]}`);
    }
    console.log(`      (${fmtS((performance.now() - t0) / 1000)})`);
    remaining = Math.max(0, remaining - estimate(t));
  }
  await state.scenario?.close();

  const rows = toRows(state.figures);
  console.log(`\n${consoleTable(rows)}\n`);
  const info: RunInfo = {
    date: new Date().toISOString(), quick: args.quick, durationS: Math.round((performance.now() - started) / 1000),
    node: process.versions.node, cpu: cpus()[0]?.model.trim() ?? "unknown", cores: ctx.cores,
    loadavg: { start: loads[0]!, end: loadavg()[0]!, max: Math.max(...loads, loadavg()[0]!) }, skipped, failed,
  };
  if (args.only) {
    // Nothing is written: the notes (how each figure was measured) go to the console instead.
    for (const f of state.figures) if (f.note) console.log(`- ${f.name}: ${f.note}`);
    console.log("--only: bench/results/latest.* left as they were.");
  }
  else console.log(`Wrote ${writeResults(RESULTS, info, rows).join(", ")}`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
