// The main thread's CPU an event, stage by stage, measured rather than sampled: the live path in
// one process (bench/live-path-run.ts) run whole and without each of the stages that have a
// thread or a disk of their own (verification, the index, the log), in fresh processes, the
// variants alternated round by round. What a stage costs the main thread is what removing it
// saves: its own calls, the garbage it makes and the time its events wait (their state is kept,
// and copied by the collector, while they wait). What is left without all three (parsing, the
// edge checks, the route, the fold, the index items) is the rest. Run whole on one core too
// (`taskset -c 0`): whether the rate grows with the second core or stops at the main thread.
//
// A CPU profile samples the thread's wall time, descheduled moments included (on two busy cores,
// many: docs/performance.md), so its shares are not CPU; /proc's counters are. In one process
// with no load generator beside it, the run to run spread is a few µs where the daemon's live
// benchmark spreads by 10-15.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { median, type BenchContext } from "./bench-context.js";
import type { Figure } from "./figure.js";
import { ensureDataset, SHAPES } from "./workload.js";

export interface PhaseCpu {
  evps: number;
  /** The main thread's CPU, µs an event. */
  mainUs: number;
  /** Every thread's, µs an event. */
  allUs: number;
}

interface Run {
  cold: PhaseCpu;
  warm: PhaseCpu;
  refused: number;
  indexErrors: number;
}

const RUNNER = resolve(import.meta.dirname, "live-path-run.js");
// util-linux's, on Debian in every install; without it the one-core run and its figure are left out.
const TASKSET = ["/usr/bin/taskset", "/bin/taskset"].find((p) => existsSync(p));
// `oneCore`: every stage, the process held to one core (`taskset -c 0`): what a second core adds.
const ALL_VARIANTS = [
  { name: "all", without: "" },
  { name: "verify", without: "verify" },
  { name: "index", without: "index" },
  { name: "log", without: "log" },
  { name: "none", without: "verify,index,log" },
  { name: "oneCore", without: "", cores: "0" },
] as const;
type Variant = (typeof ALL_VARIANTS)[number]["name"];
const VARIANTS = ALL_VARIANTS.filter((v) => TASKSET !== undefined || v.name !== "oneCore");

const runOnce = async (without: string, cores?: string): Promise<Run> => {
  const args = [RUNNER, "--without", without];
  const [file, argv] = cores === undefined || TASKSET === undefined ? [process.execPath, args] : [TASKSET, ["-c", cores, process.execPath, ...args]];
  const { stdout } = await promisify(execFile)(file, argv, { maxBuffer: 1 << 20, timeout: 300_000 });
  const run = JSON.parse(stdout.trim().split("\n").at(-1)!) as Run;
  if (run.refused > 0 || run.indexErrors > 0) {
    throw new Error(`live path run without "${without}": ${run.refused} events refused, ${run.indexErrors} index batches failed`);
  }
  return run;
};

export async function benchLivePath(ctx: BenchContext): Promise<Figure[]> {
  // Signed and cached here, once: the runs only read them (several signing at once would race).
  await ensureDataset(SHAPES.c200x50, ctx.progress);
  await ensureDataset(SHAPES.warm200x50, ctx.progress);
  const rounds = ctx.quick ? 2 : 4;
  const runs = new Map<Variant, Run[]>(VARIANTS.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of VARIANTS) {
      const what = v.name === "all" ? "every stage" : v.name === "none" ? "without verification, index and log" : v.name === "oneCore" ? "on one core" : `without ${v.name}`;
      ctx.progress(`live path, round ${r + 1}/${rounds}: ${what}`);
      runs.get(v.name)!.push(await runOnce(v.without, "cores" in v ? v.cores : undefined));
    }
  }
  const med = (v: Variant, phase: "cold" | "warm", key: keyof PhaseCpu) => median(runs.get(v)!.map((run) => run[phase][key]));
  const list = (v: Variant, phase: "cold" | "warm") => runs.get(v)!.map((run) => run[phase].mainUs).join(", ");
  const how = `median of ${rounds} runs each, the variants alternated, each a fresh process`;
  const all = `every stage (bench/live-path-run.ts: 200 × 50 as text frames, parsed and matched as the live subscription does, through its backlog to the route, the on-demand verifier, the fsync'd log and the index's thread; then 200 × 50 more, warm)`;
  const stage = (name: "verify" | "index" | "log", what: string): Figure => ({
    name: `live_path_${name}_main_us`, unit: "µs", value: med("all", "cold", "mainUs") - med(name, "cold", "mainUs"),
    note: `the main thread's CPU an event that ${what} costs: the live path in process with it (${list("all", "cold")} µs) less without it ` +
      `(${list(name, "cold")}), cold; warm ${med("all", "warm", "mainUs") - med(name, "warm", "mainUs")} µs; ` +
      `every thread's: ${med("all", "cold", "allUs") - med(name, "cold", "allUs")} cold, ${med("all", "warm", "allUs") - med(name, "warm", "allUs")} warm; ` +
      `rate without it ${med(name, "cold", "evps")} / ${med(name, "warm", "evps")} ev/s cold / warm; ${how}`,
  });
  return [
    {
      name: "live_path_main_us_per_event", unit: "µs", value: med("all", "cold", "mainUs"),
      note: `the main thread's CPU an event (/proc/self/task), ${all}, cold: ${list("all", "cold")}; warm ${med("all", "warm", "mainUs")} ` +
        `(${list("all", "warm")}); every thread's ${med("all", "cold", "allUs")} / ${med("all", "warm", "allUs")} µs cold / warm; ` +
        `${med("all", "cold", "evps")} / ${med("all", "warm", "evps")} ev/s; ${how}. The daemon's own, over a socket, is ingest_main_cpu_us_per_event`,
    },
    stage("verify", "verification (posting to the pool's worker, its answers; replaced by a verifier that says ok)"),
    stage("index", "the index (its batches posted to its thread; the feeder still runs, its batches dropped)"),
    stage("log", "the log (its JSON, buffers, group commit and flushes, and the wait for them; replaced by appends durable at once, kept nowhere)"),
    ...(TASKSET !== undefined ? [coreScaling(med, how)] : []),
    {
      name: "live_path_rest_main_us", unit: "µs", value: med("none", "cold", "mainUs"),
      note: `the main thread's CPU an event without verification, index writes or log (${list("none", "cold")}), cold; warm ` +
        `${med("none", "warm", "mainUs")} (${list("none", "warm")}): parsing, the edge checks, dedup, the route and its queues, the fold, ` +
        `the index items, and their garbage; ${med("none", "cold", "evps")} / ${med("none", "warm", "evps")} ev/s; ${how}`,
    },
  ];
}

/**
 * Whether the rate grows with cores or stops at the main thread: the live path's rate on two cores
 * over its rate held to one, and how busy its main thread is at the two cores' rate (a thread that
 * is the cap is busy all the time; the issue's 60 µs an event was asked so that it is not).
 */
function coreScaling(med: (v: Variant, phase: "cold" | "warm", key: keyof PhaseCpu) => number, how: string): Figure {
  const ratio = (phase: "cold" | "warm") => Math.round((100 * med("all", phase, "evps")) / med("oneCore", phase, "evps")) / 100;
  const busy = (phase: "cold" | "warm") => Math.round((100 * med("all", phase, "evps") * med("all", phase, "mainUs")) / 1e6);
  const cap = (phase: "cold" | "warm") => Math.round(1e6 / med("all", phase, "mainUs"));
  return {
    name: "live_path_core_scaling", unit: "× one core", value: ratio("cold"),
    note: `the live path in process on both cores (${med("all", "cold", "evps")} ev/s cold, ${med("all", "warm", "evps")} warm) over the same ` +
      `held to one (taskset -c 0: ${med("oneCore", "cold", "evps")} / ${med("oneCore", "warm", "evps")}); warm ${ratio("warm")}×. On two cores ` +
      `the main thread is busy ${busy("cold")}% of the time cold, ${busy("warm")}% warm: at its CPU an event it alone would carry ` +
      `${cap("cold")} / ${cap("warm")} ev/s; ${how}`,
  };
}
