// The live ingest's floor, run beside tenexd's runs (live-ingest.ts): the minimal host of
// ingest-floor-host.ts fed the same events by the same load generator, timed the same way (from
// the first event sent until its index holds them all, ingest-phase.ts), its CPU read the same way.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { indexedMessages, pollFor } from "./child-daemon.js";
import { timedRun, type LiveRun } from "./ingest-phase.js";
import { startReplayRelay } from "./replay-relay.js";
import type { NostrEvent } from "../src/types.js";

const HOST = join(import.meta.dirname, "ingest-floor-host.js");
const START_TIMEOUT_MS = 30_000;

/** As liveRun (live-ingest.ts), for the floor host: the events, then `warm` timed apart. */
export async function floorRun(events: readonly NostrEvent[], warm?: readonly NostrEvent[]): Promise<LiveRun> {
  const replay = await startReplayRelay(events);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-ingest-floor-"));
  const host = spawn(process.execPath, [HOST, replay.url, dir], { stdio: ["ignore", "ignore", "inherit"] });
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

// The file is created by the host's index thread at its start: not there yet, or busy, is "not yet".
function countOrUndefined(path: string): number | undefined {
  try {
    return indexedMessages(path);
  } catch {
    return undefined;
  }
}
