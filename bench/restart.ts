// Restart (bench/goals.ts): `tenexd start --json` as a child process on a project holding 10,000
// (200 × 50) or 1,000,000 (20,000 × 50) real signed events, filled fast through the real log
// and index (bench-project.ts; the 1,000,000-event store once per code version, store-cache.ts).
// Its relay holds the events of the last 10 minutes, all the
// back-fill's overlap window asks for, so a restart re-reads (and deduplicates) what a real one
// would. Each start is measured three ways: the daemon's own ready time (from Daemon
// construction), the wall time from spawn to the ready line, and VmRSS at ready and after a few
// seconds idle. Clean restarts follow a SIGTERM (the daemon marks a clean stop and skips the
// index check); crash restarts follow a SIGKILL (the index is reconciled against the logs).
// The Director's status (GET /api/v1/status) is timed on the same daemon.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, round, type BenchContext } from "./bench-context.js";
import { fillStore, writeBenchProject, type BenchProject, type FillReport } from "./bench-project.js";
import { indexedMessages, logLine, seedRelay, startDaemon, startRelay, type DaemonChild, type RelayChild } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";
import { cachedStoreProject } from "./store-cache.js";
import { benchKeys, ensureDataset, eventsSince, newestCreatedAt, readDataset, SHAPES, type Shape } from "./workload.js";

const OVERLAP_WINDOW_S = 600;
const IDLE_MS = 3_000;
const STATUS_CALLS = 50;

export type RestartSize = "10k" | "1m";

interface StartSample {
  ms: number;
  wallMs: number;
  rss: number;
  peak: number;
  fetched: number;
  backfillMs: number;
}

// The back-fill of the overlap window runs after ready, in the background.
const BACKFILL_TIMEOUT_MS = 120_000;

export interface Setup {
  project: BenchProject;
  relay: RelayChild;
  fill: FillReport;
  /** How the store came to be, for the notes. */
  stored: string;
  close(): Promise<void>;
}

/** `cache`: use the store filled once and kept between runs (for the 1,000,000-event store). */
export async function setUp(shape: Shape, cache: boolean, ctx: BenchContext): Promise<Setup> {
  await ensureDataset(shape, ctx.progress);
  const dir = mkdtempSync(join(tmpdir(), `tenexd-restart-bench-`));
  const relayDb = join(dir, "relay.sqlite");
  await seedRelay(relayDb, await eventsSince(shape, newestCreatedAt(shape) - OVERLAP_WINDOW_S));
  const relay = await startRelay(relayDb);
  const close = async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (cache) {
      const { project, fill } = await cachedStoreProject(shape, benchKeys(), relay.url, ctx.progress);
      const stored = `${fill.events} events in ${fill.conversations} conversations (filled once in ${round(fill.ms / 1000)} s and kept between runs)`;
      return { project, relay, fill, stored, close };
    }
    const project = writeBenchProject(join(dir, "project"), benchKeys(), [relay.url]);
    const fill = await fillStore(project.tenexDir, benchKeys(), readDataset(shape), relay.url);
    return { project, relay, fill, stored: `${fill.events} events in ${fill.conversations} conversations (filled in ${round(fill.ms / 1000, 1)} s)`, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** RSS at ready, then waits for the background back-fill (so the next step starts from rest). */
async function measure(d: DaemonChild): Promise<StartSample> {
  const { rss, peak } = d.rssMb();
  const caught = await logLine(d, "caught up", BACKFILL_TIMEOUT_MS);
  return { ms: d.ready.ms, wallMs: d.wallMs, rss, peak, fetched: Number(caught.fetched), backfillMs: Number(caught.ms) };
}

/** Starts the daemon on `dir`, runs `body`, then stops or kills it (kills it if `body` throws). */
async function withDaemon<T>(dir: string, end: "stop" | "kill", body: (d: DaemonChild) => Promise<T>): Promise<T> {
  const d = await startDaemon(dir);
  let result: T;
  try {
    result = await body(d);
  } catch (err) {
    await d.kill();
    throw err;
  }
  await (end === "stop" ? d.stop() : d.kill());
  return result;
}

/** Median of `n` Director status requests over the daemon's HTTP API, in ms. */
async function statusMs(tenexDir: string, n: number): Promise<number> {
  const port = readFileSync(join(tenexDir, "daemon.port"), "utf8").trim();
  const token = readFileSync(join(tenexDir, "daemon.token"), "utf8").trim();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/status`, { headers: { authorization: `Bearer ${token}` } });
    await res.json();
    times.push(performance.now() - start);
    if (!res.ok) throw new Error(`GET /api/v1/status answered ${res.status}`);
  }
  return median(times);
}

export async function benchRestart(ctx: BenchContext, size: RestartSize): Promise<Figure[]> {
  const shape = size === "10k" ? SHAPES.c200x50 : SHAPES.million;
  const runs = ctx.quick ? 3 : 5;
  const s = await setUp(shape, size === "1m", ctx);
  try {
    const dir = s.project.dir;
    // The first start after the fill has no clean-stop mark: it checks the index, as after a crash.
    await withDaemon(dir, "stop", measure);

    const clean: StartSample[] = [];
    let idle = { rss: 0, peak: 0 };
    let status = 0;
    for (let i = 0; i < runs; i++) {
      // The last clean start is killed: the next start is the first crash restart.
      clean.push(await withDaemon(dir, i === runs - 1 ? "kill" : "stop", async (d) => {
        const sample = await measure(d);
        if (i === 0) {
          await new Promise((r) => setTimeout(r, IDLE_MS));
          idle = d.rssMb();
          status = await statusMs(s.project.tenexDir, STATUS_CALLS);
        }
        return sample;
      }));
    }
    const crash: StartSample[] = [];
    for (let i = 0; i < runs; i++) crash.push(await withDaemon(dir, i === runs - 1 ? "stop" : "kill", measure));
    // Restarts receive nothing new: the store must hold exactly what it was filled with.
    const held = indexedMessages(join(s.project.tenexDir, "index.sqlite"));
    const stored = held === s.fill.events ? s.stored : `${s.stored}; WARNING: the index now holds ${held} messages`;
    return figures(size, stored, clean, crash, idle, status, runs);
  } finally {
    await s.close();
  }
}

function figures(
  size: RestartSize, stored: string, clean: StartSample[], crash: StartSample[], idle: { rss: number; peak: number }, status: number, runs: number,
): Figure[] {
  const m = (xs: StartSample[], k: keyof StartSample) => round(median(xs.map((x) => x[k])), 1);
  const rssAtReady = Math.max(...clean.map((c) => c.rss));
  const rss = round(Math.max(rssAtReady, idle.rss), 1);
  const overlap = `after ready, the background back-fill re-read ${m(clean, "fetched")} overlap events in ${m(clean, "backfillMs")} ms (medians)`;
  return [
    {
      name: `restart_${size}_ms`, value: m(clean, "ms"), unit: "ms", goal: goalText(`restart_${size}_ms`),
      note: `clean restart (after SIGTERM) of \`tenexd start\` with ${stored}; the daemon's own ready time, median of ${runs} (${clean.map((c) => c.ms).join(", ")}); ${overlap}`,
    },
    {
      name: `restart_${size}_wall_ms`, value: m(clean, "wallMs"), unit: "ms",
      note: `the same clean restarts, from spawn to the ready line (Node start-up and module loading included), median of ${runs}`,
    },
    {
      name: `restart_${size}_rss_mb`, value: rss, unit: "MB", goal: goalText(`restart_${size}_rss_mb`),
      note: `VmRSS, the largest of: at ready (max of ${runs} clean restarts, ${round(rssAtReady, 1)} MB) and after ${IDLE_MS / 1000} s idle (${round(idle.rss, 1)} MB); peak VmHWM ${round(idle.peak, 1)} MB`,
    },
    {
      name: `restart_${size}_crash_ms`, value: m(crash, "ms"), unit: "ms", goal: goalText(`restart_${size}_ms`),
      note: `restart after SIGKILL (index reconciled against the logs), the daemon's own ready time, median of ${runs} (${crash.map((c) => c.ms).join(", ")}); wall ${m(crash, "wallMs")} ms; RSS at ready ${m(crash, "rss")} MB`,
    },
    {
      name: `status_${size}_ms`, value: round(status, 2), unit: "ms", goal: goalText(`status_${size}_ms`),
      note: `GET /api/v1/status on the running daemon (HTTP round trip included), median of ${STATUS_CALLS}, ${stored}`,
    },
  ];
}
