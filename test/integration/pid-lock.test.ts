// One daemon per project: the pid lock. Several starters at once (a supervisor restarting, an
// operator typing `tenexd start` twice, a reindex) must never both win, also when the lock they
// find was left by a dead process; and a live owner's lock is never taken away. Each taker is a
// child process, all released at the same moment.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockText, parseLock } from "../../daemon/lock-holder.js";
import { acquirePidLock, ProjectLockedError } from "../../daemon/pid-lock.js";

const CHILD = join(import.meta.dirname, "fixtures", "pid-lock-child.mjs");
const TAKERS = 8;
const HOLD_MS = 1_500;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tenexd-pidlock-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  won: boolean;
  from?: number;
  to?: number;
  kept?: boolean;
  locked?: number;
  error?: string;
}

interface Churn {
  wins: number;
  lost: number;
  holds: [number, number][];
  errors: string[];
}

/** `n` child processes run the taker in `mode` on `path` from the same moment; each reports as JSON. */
async function takers<T>(mode: "once" | "churn", path: string, ms: number, n = TAKERS, deadPid = 0): Promise<T[]> {
  const startAt = Date.now() + 2_500; // time for every child to load before the start
  const runs = Array.from({ length: n }, () => new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode, path, String(startAt), String(ms), String(deadPid)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    // "close", not "exit": a child's last write can still be in the pipe when "exit" fires
    // (seen: 39 of 300 children that print and exit read as empty on "exit", 0 on "close").
    child.on("close", (code) => {
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`taker exited ${code} without an outcome: ${err}`));
      }
    });
  }));
  return Promise.all(runs);
}

const deadPid = (): number => spawnSync(process.execPath, ["-e", "0"]).pid!;

describe("the pid lock under concurrent takers", () => {
  it("owners keep dying and four takers race for each stale lock: never two owners at once", async () => {
    const path = join(dir, "churn.pid");
    writeFileSync(path, `${deadPid()}\n`);
    const runs = await takers<Churn>("churn", path, 2_000, 4, deadPid());
    const wins = runs.reduce((s, r) => s + r.wins, 0);
    // The race must actually have been run: many takeovers of a stale lock, by several takers.
    expect(wins).toBeGreaterThanOrEqual(20);
    expect(runs.filter((r) => r.wins > 0).length).toBeGreaterThanOrEqual(2);
    expect(runs.flatMap((r) => r.errors)).toEqual([]);
    expect(runs.reduce((s, r) => s + r.lost, 0), "an owner's lock was replaced while it held it").toBe(0);
    const holds = runs.flatMap((r) => r.holds).sort((a, b) => a[0] - b[0]);
    const overlaps = holds.filter((h, i) => i > 0 && h[0] < holds[i - 1]![1]).length;
    expect(overlaps, "two takers held the lock at the same time").toBe(0);
  });

  it("no lock yet: exactly one of eight simultaneous starters wins", async () => {
    const path = join(dir, "fresh.pid");
    const outcomes = await takers<Outcome>("once", path, HOLD_MS);
    expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
    const winners = outcomes.filter((o) => o.won);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.kept).toBe(true);
    expect(existsSync(path)).toBe(false); // released
  });

  it("a live owner's lock is never removed: every taker is told who holds it", async () => {
    const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const path = join(dir, "live.pid");
      writeFileSync(path, `${owner.pid}\n`);
      const before = statSync(path).ino;
      const outcomes = await takers<Outcome>("once", path, HOLD_MS);
      expect(outcomes.map((o) => o.won)).toEqual(Array(TAKERS).fill(false));
      expect(outcomes.map((o) => o.locked)).toEqual(Array(TAKERS).fill(owner.pid));
      expect(readFileSync(path, "utf8")).toBe(`${owner.pid}\n`);
      expect(statSync(path).ino).toBe(before);
    } finally {
      owner.kill("SIGKILL");
    }
  });

  it("a taker that died halfway through a takeover does not block the next one, and its files are swept", () => {
    const path = join(dir, "half.pid");
    writeFileSync(path, `${deadPid()}\n`);
    // What a taker killed mid-takeover leaves: its claim on this stale lock and its own file,
    // both naming a dead pid.
    const dead = deadPid();
    writeFileSync(`${path}.takeover-${statSync(path).ino}-0`, `${dead}\n`);
    writeFileSync(`${path}.${dead}-0a1b2c`, `${dead}\n`);
    const release = acquirePidLock(path);
    expect(readFileSync(path, "utf8")).toBe(lockText(process.pid));
    release();
    expect(readdirSync(dir).filter((f) => f.startsWith("half.pid"))).toEqual([]);
  });

  it("a lock whose pid lives but started at another time (a crash's pid, another program's now) is taken over; its true owner's is not", () => {
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const path = join(dir, "reused.pid");
      // Written by a daemon that started at tick 1 after boot: not the live process of that pid.
      writeFileSync(path, `${other.pid} 1\n`);
      const release = acquirePidLock(path);
      expect(parseLock(readFileSync(path, "utf8")).pid).toBe(process.pid);
      release();
      // The same pid with its own start time: its owner, alive.
      writeFileSync(path, lockText(other.pid!));
      expect(parseLock(readFileSync(path, "utf8")).start).toMatch(/^\d+$/);
      expect(() => acquirePidLock(path)).toThrow(ProjectLockedError);
      expect(other.exitCode).toBe(null);
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("in one process: a second acquire of a held lock is refused; release is idempotent", () => {
    const path = join(dir, "self.pid");
    const release = acquirePidLock(path);
    expect(() => acquirePidLock(path)).toThrow(ProjectLockedError);
    release();
    release();
    expect(existsSync(path)).toBe(false);
    acquirePidLock(path)();
  });
});
