// The daemon and a relay as child processes, as they run in production: `tenexd start --json`
// (its ready line, its JSON log lines on stderr, its RSS and CPU from /proc) and the embedded
// relay's stand-alone process over a SQLite file seeded directly (the relay's publish path
// verifies every event at ~1,000 ev/s and would measure the relay, not tenexd).

import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { EventRepositorySqlite } from "@nostr-relay/event-repository-sqlite";
import type { NostrEvent } from "../src/types.js";
import { PORT_FILE, TOKEN_FILE } from "../daemon/front-desk/api/token.js";
import { CACHE_DIR, ensureDataset, readDataset, type Shape } from "./workload.js";

export const BIN = resolve(import.meta.dirname, "../../bin/tenexd.js");
/** The same daemon with its signature checks answered "ok" unseen (bench/unverified-daemon.ts). */
const UNVERIFIED_BIN = resolve(import.meta.dirname, "unverified-daemon.js");
const RELAY_MAIN = resolve(import.meta.dirname, "../adapters/relay/relay-main.js");
// Linux's USER_HZ: /proc reports CPU time in these ticks.
const CLOCK_TICKS = 100;

export class ChildFailedError extends Error {
  override name = "ChildFailedError";
}

/**
 * A relay database holding every event of `shapes`, seeded once and cached: the relay's own
 * repository stores ~400 ev/s here (full-text index included), too slow to repeat every run.
 * Returns the cached file; copy it before use.
 */
export async function cachedRelayDb(shapes: readonly Shape[], progress: (msg: string) => void): Promise<string> {
  const file = join(CACHE_DIR, `relay-${shapes.map((s) => s.name).join("+")}.v1.sqlite`);
  if (existsSync(file)) return file;
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const base = shapes.slice(0, -1);
  if (base.length > 0) copyFileSync(await cachedRelayDb(base, progress), partial);
  const last = shapes[shapes.length - 1]!;
  progress(`seeding a relay database with ${last.name} (once; cached in ${CACHE_DIR})`);
  await ensureDataset(last, progress);
  const events: NostrEvent[] = [];
  for await (const conv of readDataset(last)) events.push(...conv);
  await seedRelay(partial, events);
  renameSync(partial, file);
  return file;
}

/** A copy of a relay database (a closed one: its WAL is checkpointed) at `to`. */
export function copyRelayDb(from: string, to: string): void {
  for (const suffix of ["-wal", "-shm"]) rmSync(to + suffix, { force: true });
  copyFileSync(from, to);
}

/** Stores events in a relay's database the way the relay itself would (its own repository). */
export async function seedRelay(dbPath: string, events: Iterable<NostrEvent>): Promise<number> {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  // A throw-away database: no need to wait for the disk on each of thousands of commits.
  db.pragma("synchronous = OFF");
  const repo = new EventRepositorySqlite(db);
  await repo.init();
  let n = 0;
  for (const ev of events) {
    await repo.upsert(ev);
    n++;
  }
  await repo.destroy();
  return n;
}

export interface RelayChild {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** The relay as its own process; `port` 0 picks a free one (pass the old one to restart it). */
export function startRelay(dbPath: string, port = 0): Promise<RelayChild> {
  const child = spawn(process.execPath, [RELAY_MAIN, "--port", String(port), "--db", dbPath], { stdio: ["ignore", "pipe", "inherit"] });
  reapOnExit(child);
  return new Promise((done, fail) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^READY (\S+)$/m.exec(out);
      if (m) done({ url: m[1]!, pid: child.pid!, close: () => stopChild(child, "SIGTERM") });
    });
    child.once("exit", (code) => fail(new ChildFailedError(`relay exited with ${code} before READY`)));
  });
}

export interface LogLine {
  msg: string;
  [field: string]: unknown;
}

export interface CpuSample {
  /** ms since spawn */
  t: number;
  /** CPU seconds: the daemon's first, then each watched process's. */
  seconds: number[];
}

export interface DaemonChild {
  pid: number;
  /** The `{"ready":true,"ms":…}` line: ms is measured inside the daemon from its construction. */
  ready: { ms: number; conversations: number };
  /** From spawn to the ready line, as a user waiting on `tenexd start` sees it. */
  wallMs: number;
  /** Every JSON log line so far. */
  logs: LogLine[];
  /** CPU seconds of the daemon and of `alsoWatch` every ~50 ms from spawn on. */
  cpu: CpuSample[];
  rssMb(): { rss: number; peak: number };
  /** CPU seconds the process has used so far (all threads, user + system). */
  cpuSeconds(): number;
  /** CPU seconds of its main thread alone (the JS event loop; not the workers, libuv's pool or V8's helpers). */
  mainThreadCpuSeconds(): number;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

let daemonNodeArgs: string[] = [];

/** Node flags for every daemon started from now on (e.g. `--cpu-prof --cpu-prof-dir=DIR`, to profile). */
export function setDaemonNodeArgs(args: string[]): void {
  daemonNodeArgs = args;
}

export interface DaemonOptions {
  /** Pids whose CPU to sample too (a relay child). */
  alsoWatch?: number[];
  timeoutMs?: number;
  /** Signature checks switched off: the rate verification costs, by difference (issue 18). */
  unverified?: boolean;
}

/** `tenexd start --json` on the project; resolves at its ready line. */
export async function startDaemon(projectDir: string, opts: DaemonOptions = {}): Promise<DaemonChild> {
  const { alsoWatch = [], timeoutMs = 600_000, unverified = false } = opts;
  const started = performance.now();
  const bin = unverified ? UNVERIFIED_BIN : BIN;
  const child = spawn(process.execPath, [...daemonNodeArgs, bin, "start", "--project", projectDir, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
  reapOnExit(child);
  const cpu: CpuSample[] = [];
  const sample = () => {
    try {
      // Not .map(cpuSecondsOf): map's index would be taken for a thread id, every read would fail
      // and no sample be kept (the back-fill notes said "0 cores" for a while).
      cpu.push({ t: performance.now() - started, seconds: [child.pid!, ...alsoWatch].map((pid) => cpuSecondsOf(pid)) });
    } catch {
      // The process is gone (or not yet visible): no sample.
    }
  };
  // Sampled for the child's whole life (the back-fill may run after ready), a few hours at most.
  const sampler = setInterval(() => (cpu.length < 200_000 ? sample() : undefined), 50);
  child.once("exit", () => clearInterval(sampler));
  const logs: LogLine[] = [];
  let err = "";
  let errLine = "";
  child.stderr!.on("data", (c: Buffer) => {
    errLine += c.toString();
    const lines = errLine.split("\n");
    errLine = lines.pop()!;
    for (const line of lines) {
      err = `${err}${line}\n`.slice(-4000);
      if (line.startsWith("{")) logs.push(parseLogLine(line));
    }
  });
  const ready = await new Promise<DaemonChild["ready"]>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new ChildFailedError(`daemon not ready in ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n").find((l) => l.startsWith('{"ready"'));
      if (!line) return;
      clearTimeout(timer);
      done(JSON.parse(line) as DaemonChild["ready"]);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new ChildFailedError(`daemon exited (${code}) before ready; stderr: ${err}`));
    });
  });
  const wallMs = performance.now() - started;
  const pid = child.pid!;
  return {
    pid, ready, wallMs, logs, cpu,
    rssMb: () => rssOf(pid),
    cpuSeconds: () => cpuSecondsOf(pid),
    mainThreadCpuSeconds: () => cpuSecondsOf(pid, pid),
    stop: () => stopChild(child, "SIGTERM"),
    kill: () => stopChild(child, "SIGKILL"),
  };
}

function parseLogLine(line: string): LogLine {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return { msg: line };
  }
}

/** A child left running when the benchmark dies would hold its port and files forever. */
function reapOnExit(child: ChildProcess): void {
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill(signal);
  return gone;
}

function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** Average cores each sampled process kept busy over the last `windowMs` (up to now). */
export function coresOver(d: DaemonChild, windowMs: number): number[] {
  const end = d.cpu[d.cpu.length - 1];
  if (!end) return [];
  const from = end.t - windowMs;
  // The last sample taken at or before the window opened (the first one if none was).
  const start = [...d.cpu].reverse().find((s) => s.t <= from) ?? d.cpu[0]!;
  const span = (end.t - start.t) / 1000;
  return end.seconds.map((s, i) => (span > 0 ? (s - start.seconds[i]!) / span : 0));
}

/** CPU seconds a process has used so far (all threads, user + system), or one of its threads' (`tid`). */
export function cpuSecondsOf(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** GET `path` of a running daemon's API (its port and token from `tenexDir`), the JSON answer. */
export async function daemonApi(tenexDir: string, path: string): Promise<any> {
  const port = readFileSync(join(tenexDir, PORT_FILE), "utf8").trim();
  const token = readFileSync(join(tenexDir, TOKEN_FILE), "utf8").trim();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`);
  return res.json();
}

/**
 * The first log line with this message (e.g. the back-fill's "caught up"); stderr may trail
 * the ready line on stdout by a moment, so it waits a little for it.
 */
export function logLine(d: DaemonChild, msg: string, timeoutMs = 5_000): Promise<LogLine> {
  return pollFor(() => d.logs.find((l) => l.msg === msg), timeoutMs, `no "${msg}" log line`, 20);
}

/** `probe`'s first defined answer, asked every `everyMs`; ChildFailedError("<what> within …") after `timeoutMs`. */
export async function pollFor<T>(probe: () => T | undefined, timeoutMs: number, what: string, everyMs = 50): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new ChildFailedError(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const COUNT_MESSAGES = `SELECT COUNT(*) AS n FROM messages`;

/** Messages in the daemon's index, read on a separate read-only connection. */
export function indexedMessages(indexPath: string): number {
  const db = new Database(indexPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(COUNT_MESSAGES).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
