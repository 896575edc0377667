// Live ingest (the reference of the catch-up figure): `tenexd start` as a child process, a fresh
// project, and the 200 × 50 events pushed down its live subscription from loopback as fast as
// the socket takes them (replay-relay.ts). Every event takes the live path: the live
// subscription (its EVENT frames taken off NDK's socket), the edge checks, verification, the conversation queue, the fsync'd log, the index. The rate
// runs from the first event sent until the index holds all 10,000. Each run is followed by one
// of the floor (ingest-floor-host.ts: the least a host of this design does with the same events),
// whose rate and main-thread CPU are the measured ceilings beside tenexd's. Each run then takes a
// second 10,000 events (new conversations) timed apart: the warm figures, what a daemon that has
// been running does (the first phase also pays V8's compilation of the path on its helper threads).
// A third run each time has the daemon's signature checks switched off (verify-share.ts), a
// fourth is the floor host folding each event into its conversation with tenexd's own domain
// code (--domain), and a fifth that host writing tenexd's own index instead of its two rows an
// event (--job): the floor of the whole job, so that the gap between tenexd and the floor splits
// into what the conversation work costs, what the index costs and what the rest of the daemon's
// path does.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestCeiling, median, medianRun, round, type BenchContext } from "./bench-context.js";
import { writeBenchProject } from "./bench-project.js";
import { indexedMessages, pollFor, startDaemon, type DaemonOptions } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { floorRun } from "./ingest-floor.js";
import { timedRun, type LiveRun, type PhaseRun } from "./ingest-phase.js";
import { verifyShareFigures } from "./verify-share.js";
import { startReplayRelay } from "./replay-relay.js";
import type { NostrEvent } from "../src/types.js";
import { benchKeys, inArrivalOrder, loadDataset, SHAPES } from "./workload.js";

const START_TIMEOUT_MS = 30_000;

// Single runs swing by ±25% on this shared machine: the figure is the median of three.
const RUNS = 3;

/** The live workload: the 200 × 50 events in created_at order. */
export async function liveEvents(ctx: BenchContext): Promise<NostrEvent[]> {
  return inArrivalOrder(await loadDataset(SHAPES.c200x50, ctx.progress));
}

export async function benchLiveIngest(ctx: BenchContext): Promise<Figure[]> {
  const events = await liveEvents(ctx);
  const runs: LiveRun[] = [];
  const floors: LiveRun[] = [];
  const unverified: LiveRun[] = [];
  const domainFloors: LiveRun[] = [];
  const jobFloors: LiveRun[] = [];
  const warm = inArrivalOrder(await loadDataset(SHAPES.warm200x50, ctx.progress));
  for (let i = 0; i < (ctx.quick ? 1 : RUNS); i++) {
    runs.push(await liveRun(events, warm));
    floors.push(await floorRun(events, warm));
    unverified.push(await liveRun(events, warm, { unverified: true }));
    domainFloors.push(await floorRun(events, warm, "domain"));
    jobFloors.push(await floorRun(events, warm, "job"));
  }
  const job = medianRun(jobFloors);
  const jobMains = sortedMainUs(jobFloors);
  const jobWarm = medianRun(jobFloors.map((r) => r.warm!));
  const domain = medianRun(domainFloors);
  const domainMains = sortedMainUs(domainFloors);
  const domainWarm = medianRun(domainFloors.map((r) => r.warm!));
  const { run: { rate, ms, cores }, spread } = medianRun(runs);
  const floor = medianRun(floors);
  const mains = sortedMainUs(runs);
  const floorMains = sortedMainUs(floors);
  const warms = runs.map((r) => r.warm!);
  const warmRun = medianRun(warms);
  const warmFloor = medianRun(floors.map((r) => r.warm!));
  const warmMains = sortedMainUs(warms);
  const warmText = `the same daemon (or floor host) right after it: ${warm.length} events of 200 more conversations of 50 (bench/workload.ts 200x50-warm), ` +
    `pushed the same way once the first ${events.length} were indexed, timed from their first event sent until the index held all ${events.length + warm.length}: ` +
    `a daemon that has run this path, its code compiled by V8, its first conversations in memory`;
  const ceiling = ingestCeiling(ctx, true);
  const floorText = `the floor (bench/ingest-floor-host.ts: one process; each frame parsed once, deduplicated by id, verified natively on 2 worker threads in batches, appended to its conversation's file in group commit with fdatasync, 2 index rows an event on an index thread; no conversation state, no edge checks, no queues), each run right after one of tenexd's`;
  return [{
    name: "ingest_main_cpu_us_per_event", value: median(mains), unit: "µs", limit: median(floorMains),
    note: `the daemon's main thread's own CPU time (/proc/PID/task/PID/stat, user + system) from the first event sent ` +
      `until the index held all ${events.length}, ÷ ${events.length}, in the live runs of ingest_live_200x50_evps; median of ${mains.join(", ")} µs. ` +
      `Limit: the same of ${floorText}: ${floorMains.join(", ")} µs. ` +
      `Its split by stage is in docs/architecture.md ("Per-event CPU budget")`,
  }, {
    name: "ingest_live_200x50_evps", value: rate, unit: "ev/s",
    ...(ceiling ? { limit: ceiling.evps } : {}),
    note: `tenexd as a child process, the ${events.length} events of 200 × 50 in created_at order pushed down its live ` +
      `subscription from loopback as fast as the socket takes them (a load generator, not a relay: a relay's publish path ` +
      `verifies at ~1,000 ev/s), every signature verified, fsync'd log + index; ${spread ? `${spread}, each a fresh project; the median run: ` : ""}${Math.round(ms)} ms from the first ` +
      `event sent until the index held them all; daemon CPU ${round(cores, 2)} cores of ${ctx.cores} ` +
      `(${Math.round((cores * ms * 1000) / events.length)} µs an event in all its threads); ${ceiling?.text ?? "limit not measured"}; ` +
      `the measured floor of this design: ingest_live_floor_evps ${floor.run.rate} ev/s (${round(rate / floor.run.rate, 2)}× of it), ` +
      `with the conversation work ingest_live_domain_floor_evps ${domain.run.rate} ev/s (${round(rate / domain.run.rate, 2)}× of it), ` +
      `and with tenexd's own index as well, the floor of the whole job, ingest_live_job_floor_evps ${job.run.rate} ev/s (${round(rate / job.run.rate, 2)}× of it)`,
  }, {
    name: "ingest_live_warm_200x50_evps", value: warmRun.run.rate, unit: "ev/s", limit: warmFloor.run.rate,
    note: `as ingest_live_200x50_evps, ${warmText}; ${warmRun.spread ? `${warmRun.spread}; ` : ""}the median run: ${Math.round(warmRun.run.ms)} ms, ` +
      `daemon CPU ${round(warmRun.run.cores, 2)} cores (${Math.round((warmRun.run.cores * warmRun.run.ms * 1000) / warm.length)} µs an event in all its threads), ` +
      `main thread ${warmMains.join(", ")} µs an event. Limit: the floor's warm phase (${warmFloor.spread ? `${warmFloor.spread}; ` : ""}` +
      `main thread ${sortedMainUs(floors.map((r) => r.warm!)).join(", ")} µs an event), so ${round(warmRun.run.rate / warmFloor.run.rate, 2)}× of it; ` +
      `the whole job's floor's warm phase (ingest_live_job_floor_evps): ${jobWarm.run.rate} ev/s, so ${round(warmRun.run.rate / jobWarm.run.rate, 2)}× of it`,
  }, {
    name: "ingest_main_cpu_warm_us_per_event", value: median(warmMains), unit: "µs", limit: median(sortedMainUs(floors.map((r) => r.warm!))),
    note: `as ingest_main_cpu_us_per_event, over the warm phase of ingest_live_warm_200x50_evps: ${warmMains.join(", ")} µs; limit: the floor's warm phase`,
  },
  ...verifyShareFigures("ingest_live", runs, unverified, "ingest_live_200x50_evps's runs"),
  ...verifyShareFigures("ingest_live_warm", runs.map((r) => r.warm!), unverified.map((r) => r.warm!), "their warm phases (ingest_live_warm_200x50_evps)"),
  {
    name: "ingest_live_floor_evps", value: floor.run.rate, unit: "ev/s",
    ...(ceiling ? { limit: ceiling.evps } : {}),
    note: `${floorText}; the same events from the same load generator, timed the same way; ${floor.spread ? `${floor.spread}; ` : ""}` +
      `the median run: ${Math.round(floor.run.ms)} ms, CPU ${round(floor.run.cores, 2)} cores of ${ctx.cores}; ${ceiling?.text ?? "limit not measured"}`,
  }, {
    name: "ingest_live_domain_floor_evps", value: domain.run.rate, unit: "ev/s", limit: floor.run.rate,
    note: `the floor host with the conversation work (ingest-floor-host.ts --domain): each event also folded into its conversation, kept in memory, ` +
      `by tenexd's own pure domain code (decideInbound, stamp, applyRecords: order, phase, turns, views) and who it sets to work decided ` +
      `(decideRuns), its records the lines appended; still no edge checks, no queues, the same 2 index rows; each run right after the floor's; ` +
      `${domain.spread ? `${domain.spread}; ` : ""}the median run: ${Math.round(domain.run.ms)} ms, CPU ${round(domain.run.cores, 2)} cores; ` +
      `main thread ${domainMains.join(", ")} µs an event (the floor's ${floorMains.join(", ")}, tenexd's ${mains.join(", ")}); ` +
      `warm phase ${domainWarm.run.rate} ev/s, main thread ${sortedMainUs(domainFloors.map((r) => r.warm!)).join(", ")} µs. ` +
      `Limit: ingest_live_floor_evps, so ${round(domain.run.rate / floor.run.rate, 2)}× of it: what the domain costs; ` +
      `tenexd is ${round(rate / domain.run.rate, 2)}× of this: what the rest of its path costs`,
  }, {
    name: "ingest_live_job_floor_evps", value: job.run.rate, unit: "ev/s", limit: domain.run.rate,
    note: `the floor host doing the whole job (ingest-floor-host.ts --job): as ingest_live_domain_floor_evps, and instead of its two rows an event ` +
      `tenexd's own index (its schema, the rows, words and aggregates its queries read) written by tenexd's own index thread ` +
      `(adapters/sqlite-index/worker-index-writer.ts), a flush's items (one a conversation) held while its lines are written and synced and ` +
      `committed once they are durable, as tenexd's store does; still no edge checks, no queues, no arrival order, no status; each run right after ` +
      `the domain floor's; ${job.spread ? `${job.spread}; ` : ""}the median run: ${Math.round(job.run.ms)} ms, CPU ${round(job.run.cores, 2)} cores; ` +
      `main thread ${jobMains.join(", ")} µs an event; warm phase ${jobWarm.run.rate} ev/s (${jobWarm.spread || "one run"}), main thread ` +
      `${sortedMainUs(jobFloors.map((r) => r.warm!)).join(", ")} µs. Limit: ingest_live_domain_floor_evps, so ${round(job.run.rate / domain.run.rate, 2)}× ` +
      `of it: what tenexd's index costs the job; tenexd is ${round(rate / job.run.rate, 2)}× of this: what its path costs beyond the job`,
  }];
}

const sortedMainUs = (runs: PhaseRun[]) => runs.map((r) => Math.round(r.mainUs)).sort((a, b) => a - b);

/**
 * One daemon on a fresh project, fed the events live; resolves once its index holds them all.
 * With `warm`, those events are pushed next, down the same subscription once the first are
 * indexed, and timed apart (`warm`): the daemon has then run the path and V8 has compiled it.
 */
export async function liveRun(events: readonly NostrEvent[], warm?: readonly NostrEvent[], opts: DaemonOptions = {}): Promise<LiveRun> {
  const replay = await startReplayRelay(events);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-live-bench-"));
  try {
    const project = writeBenchProject(join(dir, "project"), benchKeys(), [replay.url]);
    const daemon = await startDaemon(project.dir, opts);
    try {
      const started = await pollFor(() => replay.startedAt(), START_TIMEOUT_MS, "no live subscription");
      const indexPath = join(project.tenexDir, "index.sqlite");
      return await timedRun(daemon.pid, replay, started, () => indexedMessages(indexPath), events, warm);
    } finally {
      await daemon.stop();
    }
  } finally {
    await replay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
