// The live ingest's floor, run beside tenexd's runs (live-ingest.ts): the minimal host of
// ingest-floor-host.ts fed the same events by the same load generator, timed the same way (from
// the first event sent until its index holds them all, ingest-phase.ts), its CPU read the same way.
// And the relay path's floor (relay-ingest.ts): the same host back-filling from the same relay.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evps } from "./bench-context.js";
import { cpuSecondsOf, indexedMessages, pollFor } from "./child-daemon.js";
import { timedRun, type LiveRun } from "./ingest-phase.js";
import { startReplayRelay } from "./replay-relay.js";
import type { NostrEvent } from "../src/types.js";

const HOST = join(import.meta.dirname, "ingest-floor-host.js");
const START_TIMEOUT_MS = 30_000;

/**
 * What the floor host does beside the plain floor (ingest-floor-host.ts): `domain` folds each
 * event into its conversation too (--domain); `job` also writes tenexd's own index (--job).
 */
export type FloorMode = "plain" | "domain" | "job";

/** As liveRun (live-ingest.ts), for the floor host: the events, then `warm` timed apart. */
export async function floorRun(events: readonly NostrEvent[], warm?: readonly NostrEvent[], mode: FloorMode = "plain"): Promise<LiveRun> {
  const replay = await startReplayRelay(events);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-ingest-floor-"));
  const host = spawn(process.execPath, [HOST, replay.url, dir, ...(mode === "plain" ? [] : [`--${mode}`])], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((r) => host.once("exit", () => r()));
  try {
    const pid = host.pid!;
    const started = await pollFor(() => replay.startedAt(), START_TIMEOUT_MS, "the floor host did not subscribe");
    const indexPath = join(dir, "index.sqlite");
    return await timedRun(pid, replay, started, () => countOrUndefined(indexPath), events, warm);
  } finally {
    host.kill("SIGTERM");
    await exited;
    await replay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface FloorBackfill {
  rate: number;
  ms: number;
  /** Average cores the host and the relay kept busy meanwhile. */
  cores: number;
  relayCores: number;
}

/**
 * The floor host's first back-fill from `relay` (paged as the daemon pages it; from `since` on,
 * if given), timed from its first REQ until its index holds `expected` messages: the floor of
 * ingest_relay_200x50_evps, and with `since` of catchup_10k_evps.
 */
export async function floorBackfillRun(relay: { url: string; pid: number }, expected: number, since?: number): Promise<FloorBackfill> {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-backfill-floor-"));
  const args = [HOST, relay.url, dir, "--backfill", ...(since !== undefined ? [String(since)] : [])];
  const host = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((r) => host.once("exit", () => r()));
  try {
    const pid = host.pid!;
    let out = "";
    let startedAt: number | undefined;
    host.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("start\n")) startedAt ??= performance.now();
    });
    const started = await pollFor(() => startedAt, START_TIMEOUT_MS, "the floor host did not start its back-fill");
    const cpu0 = [cpuSecondsOf(pid), cpuSecondsOf(relay.pid)];
    const indexPath = join(dir, "index.sqlite");
    await pollFor(() => ((countOrUndefined(indexPath) ?? 0) >= expected ? true : undefined), BACKFILL_TIMEOUT_MS, `the floor's index did not hold ${expected} messages`);
    const ms = performance.now() - started;
    const [cores, relayCores] = [cpuSecondsOf(pid) - cpu0[0]!, cpuSecondsOf(relay.pid) - cpu0[1]!].map((s) => s / (ms / 1000));
    return { rate: evps(expected, ms), ms, cores: cores!, relayCores: relayCores! };
  } finally {
    host.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const BACKFILL_TIMEOUT_MS = 600_000;

// The file is created by the host's index thread at its start: not there yet, or busy, is "not yet".
function countOrUndefined(path: string): number | undefined {
  try {
    return indexedMessages(path);
  } catch {
    return undefined;
  }
}
