// SIGKILL during ingest (issues 3 and 6; docs/architecture.md): a client publishes the project's events to
// a relay without pause while the daemon (a child process) ingests them; the daemon is killed at
// a random moment (sometimes before it is ready, during recovery or catch-up), restarted, killed
// again. After a final clean catch-up and a clean stop:
// - every event the relay accepted is in the logs, once (ids unique across all logs);
// - no conversation is lost;
// - everything the daemon had acknowledged before each kill is still there, byte for byte. An
//   event is acknowledged only once its log line is durable, so the whole lines found in the
//   logs right after the kill are a superset of what it acknowledged: all of them must survive;
// - the index (read after the clean stop) agrees with the logs.
// The suite runs 5 trials; scripts/soak.mjs runs 100 (TENEXD_CRASH_TRIALS) within a time share
// (TENEXD_SOAK_BUDGET_MS): fewer trials than asked is a failure, whatever the reason.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, makeProject, ROOT, type TestProject } from "../helpers/daemon.js";
import {
  brokenLines, envNumber, eventIdCounts, indexDisagreements, loggedProblems, ProjectEvents, recordCase, sleep, snapshotLogs,
  spawnDaemon, startPublisher, useMailboxAgents, wasmSigner, wholeLines,
} from "../helpers/fault-tools.js";
import { spawnRelay, type SpawnedRelay } from "../helpers/relay.js";

const TRIALS = envNumber("TENEXD_CRASH_TRIALS", 5);
// Past this, no new trial starts, and the test fails saying how many of the trials asked ran. The
// suite sets none: its trials all run, however slow the machine.
const BUDGET_MS = envNumber("TENEXD_SOAK_BUDGET_MS", Number.POSITIVE_INFINITY);
// Kill moments: every other trial kills at a random moment of the start (recovery, index check,
// catch-up), the others at a random moment once the daemon, ready, writes again.
const LIVE_SPAN_MS = 1_500;
const EARLIEST_KILL_MS = 100;

let tmp: string;
let relay: SpawnedRelay;
let project: TestProject;

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-crash-"));
  relay = await spawnRelay();
  project = makeProject(join(tmp, "p"), (c) => {
    c.relays = [relay.url];
  });
  useMailboxAgents(project.tenexDir);
});

afterAll(async () => {
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface Trial {
  killedAfterMs: number;
  ready: boolean;
  /** Whole lines per log file, read right after the kill. */
  acked: Map<string, string>;
}

/** `duringStart`: killed at a random moment before the start took `startMs`; else after ready. */
async function killedTrial(duringStart: boolean, startMs: number): Promise<Trial & { startMs?: number }> {
  const spawned = Date.now();
  const d = spawnDaemon(project.dir);
  let readyAfterMs: number | undefined;
  void d.ready.then(() => (readyAfterMs = Date.now() - spawned), () => undefined);
  const written = logBytes();
  const moment = duringStart
    ? sleep(EARLIEST_KILL_MS + Math.random() * startMs)
    // Once it is ready and writing again (the back-fill runs in the background), at random.
    : d.ready
      .then(() => eventually(() => (logBytes() > written ? true : undefined), 30_000, "the daemon writing"))
      .then(() => sleep(Math.random() * LIVE_SPAN_MS));
  const early = await Promise.race([moment.then(() => undefined), d.exited]);
  // The daemon must not end on its own: that would be a crash, not our kill.
  expect(early, `the daemon exited by itself: ${d.stderr().slice(-2000)}`).toBeUndefined();
  const exit = await d.kill();
  expect(exit.signal).toBe("SIGKILL");
  const acked = new Map([...snapshotLogs(project.tenexDir)].map(([path, text]) => [path, wholeLines(text)]));
  return { killedAfterMs: Date.now() - spawned, ready: readyAfterMs !== undefined, acked, startMs: readyAfterMs };
}

/** Bytes in all conversation logs. */
function logBytes(): number {
  let sum = 0;
  for (const text of snapshotLogs(project.tenexDir).values()) sum += text.length;
  return sum;
}

describe("SIGKILL during ingest", () => {
  it(`keeps every acknowledged event, loses and doubles none, over ${TRIALS} kills`, async () => {
    const sign = await wasmSigner(project.owner.sk);
    const events = new ProjectEvents(project, sign);
    const accepted = new Set<string>();
    const publisher = startPublisher(relay.url, () => events.next(20), (ids) => ids.forEach((id) => accepted.add(id)));

    const started = Date.now();
    const trials: Trial[] = [];
    try {
      let startMs = 1_500; // updated with each start that got to ready
      while (trials.length < TRIALS && Date.now() - started < BUDGET_MS) {
        const trial = await killedTrial(trials.length % 2 === 1, startMs);
        startMs = trial.startMs ?? startMs;
        trials.push(trial);
        await sleep(50 + Math.floor(Math.random() * 400)); // down for a while: events keep coming
      }
    } finally {
      await publisher.stop();
    }

    const d = spawnDaemon(project.dir);
    await d.ready;
    await eventually(() => {
      const inLogs = eventIdCounts(snapshotLogs(project.tenexDir));
      return [...accepted].every((id) => inLogs.has(id)) ? true : undefined;
    }, 60_000 + accepted.size * 10, "every accepted event in the logs");
    const exit = await d.stop();
    expect(exit, d.stderr().slice(-2000)).toEqual({ code: 0, signal: null });

    const logs = snapshotLogs(project.tenexDir);
    const counts = eventIdCounts(logs);
    let ackedLines = 0;
    let ackedLost = 0;
    const lostConversations = new Set<string>();
    for (const t of trials) {
      for (const [path, text] of t.acked) {
        const lines = text.split("\n").length - 1;
        ackedLines += lines;
        const now = logs.get(path);
        if (now === undefined) lostConversations.add(path);
        if (now === undefined || !now.startsWith(text)) ackedLost += lines - commonWholeLines(text, now ?? "");
      }
    }
    for (const root of events.roots) {
      if (accepted.has(root.id) && !logs.has(`${root.id}.jsonl`)) lostConversations.add(`${root.id}.jsonl`);
    }
    const missing = [...accepted].filter((id) => !counts.has(id));
    const duplicates = [...counts.values()].reduce((sum, c) => sum + c - 1, 0);
    const broken = brokenLines(logs);
    const disagreements = indexDisagreements(project.tenexDir);
    const logged = loggedProblems(d.stderr()).filter((p) => p.msg !== "log_torn_tail");
    const problems = logged.map((p) => p.msg);

    recordCase("crash-ingest", {
      case: "SIGKILL during ingest", asked: TRIALS, ran: trials.length, unit: "trials",
      inputs: accepted.size, lost: ackedLost + missing.length, doubled: duplicates,
      sigkill_trials: trials.length,
      killed_before_ready: trials.filter((t) => !t.ready).length,
      acked_lines: ackedLines,
      acked_lost: ackedLost,
      duplicates,
      conversations_lost: lostConversations.size,
      accepted_by_relay: accepted.size,
      missing_after_catchup: missing.length,
      conversations: logs.size,
      index_disagreements: disagreements.length,
      broken_lines: broken.length,
    });
    expect(trials.length, `${trials.length} of the ${TRIALS} trials asked ran within ${BUDGET_MS} ms`).toBe(TRIALS);
    expect(accepted.size, "the relay took no event: nothing was tested").toBeGreaterThan(0);
    // The kills landed while events were being written.
    expect(ackedLines).toBeGreaterThan(0);
    expect(trials.some((t) => t.ready), "at least one kill during live ingest").toBe(true);
    expect(ackedLost).toBe(0);
    expect(missing).toEqual([]);
    expect(duplicates).toBe(0);
    expect(broken).toEqual([]);
    expect([...lostConversations]).toEqual([]);
    expect(disagreements).toEqual([]);
    // With their details: a problem seen once in a full suite must say what it was.
    expect(problems, JSON.stringify(logged)).toEqual([]);
  }, 120_000 + TRIALS * 8_000);
});

/** How many whole lines `a` and `b` share from their start. */
function commonWholeLines(a: string, b: string): number {
  const la = a.split("\n");
  const lb = b.split("\n");
  let n = 0;
  while (n < la.length - 1 && n < lb.length - 1 && la[n] === lb[n]) n++;
  return n;
}
