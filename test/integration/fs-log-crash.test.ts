// SIGKILL during ingest (bench/goals.ts: 0 acknowledged records lost over 100 trials). A child
// process appends to many conversations as fast as it can, printing each record only once its
// append resolved; it is killed at a random moment, restarted to continue, killed again. Every
// acknowledged record must then be in the log exactly once, and every file must parse.
// The normal suite runs 10 trials within a time budget (a loaded machine runs fewer, never
// under 3); TENEXD_LOG_CRASH_TRIALS=100 runs a soak of exactly that many.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileConversationLog, type LogProblem } from "../../adapters/fs-log/index.js";
import { tempDir } from "./fixtures/fs-log-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
const CHILD = join(here, "fixtures", "log-crash-child.mjs");
const COMPILED = join(here, "..", "..", "dist", "adapters", "fs-log", "index.js");
const SOAK = process.env.TENEXD_LOG_CRASH_TRIALS;
const TRIALS = Number(SOAK ?? 10);
const BUDGET_MS = SOAK ? Infinity : 20_000;
const MIN_TRIALS = 3;

export interface CrashTrial {
  /** Acknowledged records, over all runs. */
  acked: number;
  conversations: number;
  tornTails: number;
  killDelaysMs: number[];
}

/** Runs the child until its first acknowledgement plus `killAfterMs`, then SIGKILLs it. */
function runChild(dataDir: string, killAfterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir, "24"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      timer ??= setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      clearTimeout(timer);
      if (signal !== "SIGKILL" || timer === undefined) return reject(new Error(`child ended with ${code ?? signal}: ${err}`));
      // A line cut by the kill was never fully printed, so it does not count as acknowledged.
      resolve(out.slice(0, out.lastIndexOf("\n") + 1).split("\n").filter(Boolean));
    });
  });
}

export async function runCrashTrial(runs = 2): Promise<CrashTrial> {
  const dataDir = tempDir();
  const acked = new Map<string, number[]>();
  const killDelaysMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const delay = 10 + Math.floor(Math.random() * 290);
    killDelaysMs.push(delay);
    for (const line of await runChild(dataDir, delay)) {
      const [id, n] = line.split(" ") as [string, string];
      acked.set(id, [...(acked.get(id) ?? []), Number(n)]);
    }
  }

  const problems: LogProblem[] = [];
  const log = new FileConversationLog(dataDir, { onProblem: (p) => problems.push(p) });
  const listed = new Set((await log.list()).map((c) => c.id));
  const where = `kill delays ${killDelaysMs.join(", ")} ms, dir ${dataDir}`;
  for (const id of acked.keys()) expect(listed.has(id), `conversation ${id} lost (${where})`).toBe(true);
  for (const id of listed) {
    const records = await log.read(id); // throws CorruptLogError if any file does not parse
    // The child numbers records 1, 2, 3, … and continues after a restart: no gap, no repeat.
    const wrong = records.find((rec, i) => rec.n !== i + 1 || rec.t !== "read_file" || !rec.path.startsWith(`${id.slice(0, 8)}:${rec.n} `));
    expect(wrong, `${id}: unexpected record (${where})`).toBeUndefined();
    const missing = (acked.get(id) ?? []).filter((n) => n > records.length);
    expect(missing, `${id}: acknowledged records missing (${where})`).toEqual([]);
  }
  await log.close();
  expect(problems.filter((p) => p.kind !== "torn_tail"), where).toEqual([]);
  const count = [...acked.values()].reduce((sum, ns) => sum + ns.length, 0);
  // Each run acknowledged something, so the kill did land during ingest.
  expect(count).toBeGreaterThan(0);
  return { acked: count, conversations: listed.size, tornTails: problems.length, killDelaysMs };
}

describe("crash safety", () => {
  it(`loses no acknowledged record over up to ${TRIALS} SIGKILL trials (kill, restart, kill)`, async () => {
    expect(existsSync(COMPILED), "the child runs the compiled adapter: run `npx tsc -p tsconfig.build.json` first").toBe(true);
    const start = Date.now();
    let trials = 0;
    let acked = 0;
    let torn = 0;
    while (trials < TRIALS && (trials < MIN_TRIALS || Date.now() - start < BUDGET_MS)) {
      const trial = await runCrashTrial();
      acked += trial.acked;
      torn += trial.tornTails;
      trials++;
    }
    console.info(`log crash trials: ${trials}, acknowledged records: ${acked}, torn tails repaired: ${torn}`);
    expect(trials).toBeGreaterThanOrEqual(Math.min(TRIALS, MIN_TRIALS));
    expect(acked).toBeGreaterThan(trials * 2);
  }, 120_000 + TRIALS * 3_000);
});
