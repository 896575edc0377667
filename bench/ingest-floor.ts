// The live ingest's floor, run beside tenexd's runs (live-ingest.ts): the minimal host of
// ingest-floor-host.ts fed the same events by the same load generator, timed the same way (from
// the first event sent until its index holds them all), its CPU read the same way.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evps } from "./bench-context.js";
import { cpuSecondsOf, indexedMessages, pollFor } from "./child-daemon.js";
import type { LiveRun } from "./live-ingest.js";
import { startReplayRelay } from "./replay-relay.js";
import type { NostrEvent } from "../src/types.js";

const HOST = join(import.meta.dirname, "ingest-floor-host.js");
const START_TIMEOUT_MS = 30_000;
const INGEST_TIMEOUT_MS = 600_000;

export async function floorRun(events: readonly NostrEvent[]): Promise<LiveRun> {
  const replay = await startReplayRelay(events);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-ingest-floor-"));
  const host = spawn(process.execPath, [HOST, replay.url, dir], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((r) => host.once("exit", () => r()));
  try {
    const pid = host.pid!;
    const started = await pollFor(() => replay.startedAt(), START_TIMEOUT_MS, "the floor host did not subscribe");
    const cpu0 = cpuSecondsOf(pid);
    const main0 = cpuSecondsOf(pid, pid);
    const indexPath = join(dir, "index.sqlite");
    const indexed = await pollFor(() => {
      const n = countOrUndefined(indexPath);
      return n !== undefined && n >= events.length ? n : undefined;
    }, INGEST_TIMEOUT_MS, `the floor host did not index all ${events.length} events`);
    const ms = performance.now() - started;
    const mainUs = ((cpuSecondsOf(pid, pid) - main0) * 1e6) / events.length;
    return { rate: evps(Math.min(indexed, events.length), ms), ms, cores: (cpuSecondsOf(pid) - cpu0) / (ms / 1000), mainUs };
  } finally {
    host.kill("SIGTERM");
    await exited;
    await replay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The file is created by the host's index thread at its start: not there yet, or busy, is "not yet".
function countOrUndefined(path: string): number | undefined {
  try {
    return indexedMessages(path);
  } catch {
    return undefined;
  }
}
