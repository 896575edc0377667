// From a relay, every signature verified (bench/goals.ts): the 200 × 50 events are stored in a
// relay's database first (its publish path verifies at ~1,000 ev/s and would measure the
// relay), the relay runs as its own process, then `tenexd start` runs as a child process with
// no high-water mark: its first back-fill (quiet: no agent runs) takes all 10,000 in before the
// daemon reports ready. The rate is the back-fill's, from the daemon's own "caught up" log line
// (fetched, ms); the index is then counted to check that every event is in it.
// Each run is followed by the floor's back-fill from the same relay (ingest-floor.ts) and by one
// with the daemon's signature checks switched off, on a project of its own (verify-share.ts:
// what verification costs this path). The scenario (relay + the first run's project) is kept
// for the catch-up figure, which continues from it.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evps, ingestCeiling, medianRun, round, type BenchContext } from "./bench-context.js";
import { writeBenchProject, type BenchProject } from "./bench-project.js";
import {
  cachedRelayDb, copyRelayDb, coresOver, indexedMessages, logLine, startDaemon, startRelay, type DaemonChild, type RelayChild,
} from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { floorBackfillRun, type FloorBackfill } from "./ingest-floor.js";
import { goalText } from "./goals.js";
import { verifyShareFigures } from "./verify-share.js";
import { benchKeys, SHAPES } from "./workload.js";

export interface RelayScenario {
  project: BenchProject;
  relay: RelayChild;
  /** Events in the daemon's store after the first back-fill. */
  stored: number;
  /** Another project reading from the same relay, with nothing stored yet: a first back-fill again. */
  freshProject(name: string): BenchProject;
  /** Stops the relay, replaces its database with a copy of `file`, starts it again on the same port. */
  swapRelayDb(file: string): Promise<void>;
  close(): Promise<void>;
}

export interface BackfillRun {
  daemon: DaemonChild;
  fetched: number;
  pages: number;
  /** From the back-fill's start until every expected event was in the index (or the wait gave up). */
  ms: number;
  /** The back-fill's own duration, as the daemon logged it. */
  backfillMs: number;
  /** How long after the "caught up" line the last expected event reached the index (0: all there by then). */
  lateMs: number;
  quiet: boolean;
  indexed: number;
  /** Average cores the daemon and the relay kept busy during the back-fill. */
  daemonCores: number;
  relayCores: number;
}

// The back-fill runs after ready, in the background; at the goal rate 10,000 events take 2 s.
const BACKFILL_TIMEOUT_MS = 600_000;
// Single runs swing by ±25% on this shared machine: the figure is the median of three.
const RUNS = 3;
// Events may still be arriving after the back-fill (threads fetched for roots seen late): wait this long.
const SETTLE_MS = 60_000;

export interface BackfillOptions {
  /** Default: the scenario's own (the catch-up continues from it). */
  project?: BenchProject;
  /** The daemon with its signature checks switched off (child-daemon.ts). */
  unverified?: boolean;
}

/**
 * Starts the daemon, reads its back-fill from the "caught up" line and waits until the index
 * holds `expected` messages; the daemon is left running (killed if anything fails).
 */
export async function runBackfill(scenario: RelayScenario, expected: number, opts: BackfillOptions = {}): Promise<BackfillRun> {
  const { project = scenario.project, unverified = false } = opts;
  const daemon = await startDaemon(project.dir, { alsoWatch: [scenario.relay.pid], unverified });
  try {
    const caught = await logLine(daemon, "caught up", BACKFILL_TIMEOUT_MS);
    const caughtAt = performance.now();
    const backfillMs = Number(caught.ms);
    const [daemonCores = 0, relayCores = 0] = coresOver(daemon, backfillMs);
    const indexPath = join(project.tenexDir, "index.sqlite");
    let indexed = indexedMessages(indexPath);
    let lateMs = 0;
    while (indexed < expected && performance.now() - caughtAt < SETTLE_MS) {
      await new Promise((r) => setTimeout(r, 50));
      indexed = indexedMessages(indexPath);
      lateMs = performance.now() - caughtAt;
    }
    return {
      daemon, fetched: Number(caught.fetched), pages: Number(caught.pages), ms: backfillMs + lateMs, backfillMs, lateMs,
      quiet: caught.quiet === true, indexed, daemonCores, relayCores,
    };
  } catch (err) {
    await daemon.kill();
    throw err;
  }
}

/** What the notes say about a back-fill: counts, timing and, loudly, any event that never arrived. */
export function backfillText(run: BackfillRun, expected: number): string {
  const missing = Math.max(0, expected - run.indexed);
  return `${run.fetched} fetched in ${run.pages} pages, quiet=${run.quiet}; back-fill ${run.backfillMs} ms` +
    (run.lateMs > 0 ? ` + ${Math.round(run.lateMs)} ms after it until the index held them all` : "") +
    (missing > 0 ? `; INCOMPLETE: ${missing} of ${expected} events not in the index ${SETTLE_MS / 1000} s after the back-fill` : "") +
    `; the daemon was ready ${run.daemon.ready.ms} ms after start (${Math.round(run.daemon.wallMs)} ms after spawn), back-filling in the background; ` +
    `CPU during the back-fill: daemon ${round(run.daemonCores, 2)} cores, relay ${round(run.relayCores, 2)} cores`;
}

/** A relay process holding the 200 × 50 events, and a project that reads from it. */
export async function openRelayScenario(ctx: BenchContext): Promise<RelayScenario> {
  const seeded = await cachedRelayDb([SHAPES.c200x50], ctx.progress);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-relay-bench-"));
  const relayDb = join(dir, "relay.sqlite");
  copyRelayDb(seeded, relayDb);
  const relay = await startRelay(relayDb);
  const project = writeBenchProject(join(dir, "project"), benchKeys(), [relay.url]);
  const scenario: RelayScenario = {
    project, relay, stored: 0,
    freshProject: (name) => writeBenchProject(join(dir, name), benchKeys(), [relay.url]),
    swapRelayDb: async (file) => {
      await scenario.relay.close();
      copyRelayDb(file, relayDb);
      scenario.relay = await startRelay(relayDb, Number(new URL(relay.url).port));
    },
    close: async () => {
      await scenario.relay.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return scenario;
}

/**
 * The figures, leaving `scenario` with the 10,000 events stored and the daemon stopped. Each
 * verified run is followed by the floor's and by one with the signature checks switched off, on
 * a project of its own; the first verified run's project is the scenario's (the catch-up
 * continues from it).
 */
export async function benchRelayIngest(ctx: BenchContext, scenario: RelayScenario): Promise<Figure[]> {
  const expected = SHAPES.c200x50.conversations * SHAPES.c200x50.perConversation;
  const runs: RatedBackfill[] = [];
  const unverified: RatedBackfill[] = [];
  const floors: FloorBackfill[] = [];
  const rated = async (opts: BackfillOptions): Promise<RatedBackfill> => {
    const run = await runBackfill(scenario, expected, opts);
    await run.daemon.stop();
    return { run, rate: evps(Math.min(run.indexed, expected), run.ms) };
  };
  for (let i = 0; i < (ctx.quick ? 1 : RUNS); i++) {
    runs.push(await rated(i === 0 ? {} : { project: scenario.freshProject(`verified-${i}`) }));
    floors.push(await floorBackfillRun(scenario.relay, expected));
    unverified.push(await rated({ project: scenario.freshProject(`unverified-${i}`), unverified: true }));
  }
  const floor = medianRun(floors);
  scenario.stored = runs[0]!.run.indexed;
  const { run: { run, rate }, spread } = medianRun(runs);
  const stored = Math.min(run.indexed, expected);
  const ceiling = ingestCeiling(ctx, true);
  return [{
    name: "ingest_relay_200x50_evps", value: rate, unit: "ev/s", goal: goalText("ingest_relay_200x50_evps"),
    ...(ceiling ? { limit: ceiling.evps } : {}),
    note: `tenexd as a child process, first back-fill from a relay child process (seeded directly), every signature verified; ` +
      `${spread ? `${spread}, each a project with nothing stored; the median run: ` : ""}` +
      `${stored} events stored and indexed in ${Math.round(run.ms)} ms (${backfillText(run, expected)}, of ${ctx.cores}); ` +
      `${ceiling ? `${ceiling.text} (${round(rate / ceiling.evps, 2)}× of it)` : "limit not measured"}; ` +
      `the measured floor of this design from the same relay: ingest_relay_floor_evps ${floor.run.rate} ev/s (${round(rate / floor.run.rate, 2)}× of it)`,
  }, {
    name: "ingest_relay_floor_evps", value: floor.run.rate, unit: "ev/s",
    ...(ceiling ? { limit: ceiling.evps } : {}),
    note: `the floor of ingest_live_floor_evps (bench/ingest-floor-host.ts) taking the same 10,000 events in by a first back-fill ` +
      `from the same relay, paged as the daemon pages it (its filters, page size and splitting; no bound on events in flight), ` +
      `each run right after one of tenexd's, timed from its first REQ until its index held them all; ` +
      `${floor.spread ? `${floor.spread}; ` : ""}the median run: ${Math.round(floor.run.ms)} ms, CPU: host ${round(floor.run.cores, 2)} cores, ` +
      `relay ${round(floor.run.relayCores, 2)} cores, of ${ctx.cores}; ${ceiling?.text ?? "limit not measured"}`,
  }, ...verifyShareFigures("ingest_relay", runs, unverified, "ingest_relay_200x50_evps's runs")];
}

interface RatedBackfill {
  run: BackfillRun;
  rate: number;
}
