// The setting of the catch-up fault tests (offline-catchup, faults-backfill): relays and daemons
// as child processes, cleaned up after the file; a project that has synced once; waits on what
// the logs hold (the daemon's status: fault-tools' apiStatus and statusEventually).

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { eventually, makeProject, ROOT, type TestProject } from "./daemon.js";
import { eventIdCounts, ProjectEvents, publishAll, sleep, snapshotLogs, spawnDaemon, useMailboxAgents, wasmSigner, type SignFn, type SpawnedDaemon } from "./fault-tools.js";
import { spawnRelay, type SpawnedRelay } from "./relay.js";

export interface CatchupFixture {
  tmp(): string;
  relay(): Promise<SpawnedRelay>;
  started(dir: string): Promise<SpawnedDaemon>;
  stopped(d: SpawnedDaemon): Promise<void>;
  /**
   * A project on `urls` whose agents are mailboxes except `commandAgents`, that has synced once:
   * started, took in a first conversation, stopped. (A daemon that has never taken an event in
   * has no high-water mark and takes what it finds next time in as history, quietly.)
   */
  syncedProject(name: string, urls: string[], opts?: { commandAgents?: string[]; config?: (c: Record<string, any>) => void }): Promise<{ project: TestProject; sign: SignFn }>;
}

/** Registers the file's beforeAll/afterAll and returns the fixture. */
export function useCatchupFixture(prefix: string): CatchupFixture {
  let tmp = "";
  const relays: SpawnedRelay[] = [];
  const daemons: SpawnedDaemon[] = [];
  beforeAll(() => {
    expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
    tmp = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.kill()));
    await Promise.all(relays.map((r) => r.close()));
    rmSync(tmp, { recursive: true, force: true });
  });
  const started = async (dir: string) => {
    const d = spawnDaemon(dir);
    daemons.push(d);
    await d.ready;
    return d;
  };
  const stopped = async (d: SpawnedDaemon) => {
    expect(await d.stop(), d.stderr().slice(-2000)).toEqual({ code: 0, signal: null });
  };
  return {
    tmp: () => tmp,
    relay: async () => {
      const r = await spawnRelay();
      relays.push(r);
      return r;
    },
    started,
    stopped,
    syncedProject: async (name, urls, opts = {}) => {
      const project = makeProject(join(tmp, name), (c) => {
        c.relays = urls;
        opts.config?.(c);
      });
      useMailboxAgents(project.tenexDir, opts.commandAgents ?? []);
      const sign = await wasmSigner(project.owner.sk);
      const d = await started(project.dir);
      const first = sign(11, "first", [["a", project.coordinate], ["title", "First"]]);
      await Promise.all(urls.map((u) => publishAll(u, [first])));
      await inLogs(project.tenexDir, [first.id]);
      await sleep(1_200); // the high-water marks are written every second
      await stopped(d);
      return { project, sign };
    },
  };
}

/** Waits until every id is in the logs; returns how often each of them is there. Fails naming which are missing. */
export async function inLogs(tenexDir: string, ids: readonly string[], timeoutMs = 30_000): Promise<Map<string, number>> {
  return eventually(() => {
    const counts = eventIdCounts(snapshotLogs(tenexDir));
    return ids.every((id) => counts.has(id)) ? counts : undefined;
  }, timeoutMs, `${ids.length} events in the logs`).catch((err: unknown) => {
    // Which ones, for the next reader of a failure: the message alone said only how many.
    const counts = eventIdCounts(snapshotLogs(tenexDir));
    const at = ids.flatMap((id, i) => (counts.has(id) ? [] : [i]));
    throw new Error(`${String(err)}: ${at.length} of ${ids.length} missing, at positions ${at.slice(0, 20).join(", ")} of the list`);
  });
}

/** Signs and publishes `count` events in chunks, so their created_at follows the clock as a client's would. */
export async function publishStream(urls: string[], events: ProjectEvents, count: number): Promise<string[]> {
  const accepted = new Set<string>();
  for (let done = 0; done < count; done += 100) {
    const batch = events.next(Math.min(100, count - done));
    const results = await Promise.all(urls.map((u) => publishAll(u, batch)));
    // Every relay took every event: else "through two relays" or "N events" would test less than it says.
    results.forEach((ids, k) => expect(ids.length, `${urls[k]} accepted ${ids.length} of ${batch.length}`).toBe(batch.length));
    for (const ids of results) ids.forEach((id) => accepted.add(id));
  }
  return [...accepted];
}

/** Ids that are not in the logs exactly once. */
export const timesOver = (counts: Map<string, number>, ids: readonly string[]) => ids.filter((id) => counts.get(id) !== 1);
