// Tools for the fault tests (test/e2e/crash-*, offline-*, faults-*, storage-*) and scripts/soak.mjs:
// the daemon as a child process that can be killed at any moment (even before it is ready), what
// its logs and index hold on disk, its status API (daemon-api.ts: unreadable is an error), and a
// stream of real signed project events.

import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import Database from "better-sqlite3";
import { initNostrWasm } from "nostr-wasm";
import type { CaseFigure } from "../../bench/soak-verdict.js";
import type { NostrEvent } from "../../src/types.js";
import { BIN, type TestProject } from "./daemon.js";
import { publishManyRaw } from "./relay.js";

/** Every agent a mailbox (nothing runs) except the slugs listed, which keep their command backend. */
export function useMailboxAgents(tenexDir: string, keepCommand: readonly string[] = []): void {
  const file = join(tenexDir, "agents.json");
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { agents: { slug: string; backend: unknown }[] };
  for (const a of parsed.agents) if (!keepCommand.includes(a.slug)) a.backend = { type: "mailbox" };
  writeFileSync(file, JSON.stringify(parsed, null, 2));
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnedDaemon {
  child: ChildProcess;
  /** Resolves with the `{"ready":…}` line; rejects if the process ends first. */
  ready: Promise<{ relays: string[]; ms: number; conversations: number }>;
  exited: Promise<ChildExit>;
  stderr(): string;
  /** SIGKILL (at any moment, ready or not) and wait for the process to be gone. */
  kill(): Promise<ChildExit>;
  /** SIGTERM and wait. */
  stop(): Promise<ChildExit>;
}

/**
 * `tenexd start --project DIR --json`, not waiting for anything. $TENEXD_FAULTS_BIN runs another
 * build instead (to see a fault test fail on a build with a known bug).
 */
export function spawnDaemon(dir: string): SpawnedDaemon {
  const bin = process.env.TENEXD_FAULTS_BIN ?? BIN;
  const child = spawn(process.execPath, [bin, "start", "--project", dir, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
  // A daemon left behind by a failed test would hold its project lock and relay sockets.
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  let err = "";
  let out = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  // "close": the process has ended and its stderr is read to the end (on "exit" the last lines,
  // the ones a test reads after a stop, can still be in the pipe).
  const exited = new Promise<ChildExit>((done) => child.once("close", (code, signal) => {
    process.off("exit", reap);
    done({ code, signal });
  }));
  const ready = new Promise<SpawnedDaemon["ready"] extends Promise<infer R> ? R : never>((done, fail) => {
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n").find((l) => l.startsWith('{"ready"'));
      if (line) done(JSON.parse(line));
    });
    void exited.then((e) => fail(new Error(`daemon ended (${e.code ?? e.signal}) before ready; stderr: ${err.slice(-2000)}`)));
  });
  ready.catch(() => undefined); // a kill before ready is often the point
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    return exited;
  };
  return { child, ready, exited, stderr: () => err, kill: () => signal("SIGKILL"), stop: () => signal("SIGTERM") };
}

/** Warnings and errors the daemon logged (JSON lines on stderr), e.g. `log_torn_tail`. */
export function loggedProblems(stderr: string): { level: string; msg: string; detail?: string }[] {
  const out: { level: string; msg: string; detail?: string }[] = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const rec = JSON.parse(line) as { level?: string; msg?: string; detail?: string };
      if (rec.level === "warn" || rec.level === "error") out.push({ level: rec.level, msg: String(rec.msg), detail: rec.detail });
    } catch {
      // a line cut by a kill
    }
  }
  return out;
}

const conversationsDir = (tenexDir: string) => join(tenexDir, "conversations");
const LOG_NAME = /^[0-9a-f]{64}\.jsonl$/;

/** Raw text of every conversation log (active and archived), keyed by path under conversations/. */
export function snapshotLogs(tenexDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const sub of ["", "archive"]) {
    const dir = join(conversationsDir(tenexDir), sub);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (LOG_NAME.test(name)) out.set(join(sub, name), readFileSync(join(dir, name), "utf8"));
    }
  }
  return out;
}

/** The whole lines of a log's text: what a process killed mid-append had fully written. */
export const wholeLines = (text: string): string => text.slice(0, text.lastIndexOf("\n") + 1);

/** Ids of the event records in every log, with how many times each appears. */
export function eventIdCounts(logs: Map<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of logs.values()) {
    for (const rec of parseLines(text)) {
      if (rec.t === "event") counts.set(rec.ev.id, (counts.get(rec.ev.id) ?? 0) + 1);
    }
  }
  return counts;
}

/** Conversation id → number of event records in its log. */
export function eventsPerConversation(logs: Map<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [path, text] of logs) out.set(path.slice(-70, -6), parseLines(text).filter((r) => r.t === "event").length);
  return out;
}

/**
 * Whole lines of the logs that do not parse as a record, as `path: line`. The counts above leave
 * such lines out: a test that counts events must also check that this is empty, or a line the
 * daemon damaged would go unseen.
 */
export function brokenLines(logs: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of logs) {
    for (const line of wholeLines(text).split("\n").filter(Boolean)) {
      try {
        const rec = JSON.parse(line) as { t?: unknown; n?: unknown };
        if (typeof rec.t !== "string" || typeof rec.n !== "number") out.push(`${path}: ${line.slice(0, 120)}`);
      } catch {
        out.push(`${path}: ${line.slice(0, 120)}`);
      }
    }
  }
  return out;
}

/** The records of a log's whole lines; a line that does not parse is left out (see brokenLines). */
function parseLines(text: string): any[] {
  return wholeLines(text).split("\n").filter(Boolean).flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

/**
 * Where the index (opened read-only; the daemon must be stopped) disagrees with the logs: a
 * conversation in one and not the other, or a message count that differs. Empty when in step.
 */
export function indexDisagreements(tenexDir: string): string[] {
  const perLog = eventsPerConversation(snapshotLogs(tenexDir));
  const db = new Database(join(tenexDir, "index.sqlite"), { readonly: true, fileMustExist: true });
  try {
    const convs = db.prepare("SELECT id, message_count AS count FROM conversations").all() as { id: string; count: number }[];
    const rows = db.prepare("SELECT conversation_id AS id, count(*) AS count FROM messages GROUP BY conversation_id").all() as { id: string; count: number }[];
    const messages = new Map(rows.map((r) => [r.id, r.count]));
    const out: string[] = [];
    for (const { id, count } of convs) {
      const inLog = perLog.get(id);
      if (inLog === undefined) out.push(`${id}: in the index, no log`);
      else if (count !== inLog || messages.get(id) !== inLog) out.push(`${id}: log ${inLog} events, index message_count ${count}, messages rows ${messages.get(id) ?? 0}`);
      perLog.delete(id);
    }
    for (const [id, n] of perLog) out.push(`${id}: log with ${n} events, not in the index`);
    return out;
  } finally {
    db.close();
  }
}

/**
 * Events the index lists as messages that no log holds. The index is fed only with what is
 * durable, so anything here was acknowledged without being on disk. Read while the daemon runs
 * (WAL: a reader sees the last commit); the index may lag the logs, never lead them.
 */
export function indexedNotInLogs(tenexDir: string): string[] {
  const db = new Database(join(tenexDir, "index.sqlite"), { readonly: true, fileMustExist: true });
  let ids: { id: string }[];
  try {
    ids = db.prepare("SELECT event_id AS id FROM messages").all() as { id: string }[];
  } finally {
    db.close();
  }
  // The logs after the index: what the index held was durable before it was read.
  const inLogs = eventIdCounts(snapshotLogs(tenexDir));
  return ids.map((r) => r.id).filter((id) => !inLogs.has(id));
}

/** PRAGMA user_version of an index file. */
export function indexSchemaVersion(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma("user_version", { simple: true }) as number;
  } finally {
    db.close();
  }
}

// The status reader lives in daemon-api.ts; the fault tests import it from here with the rest.
export { apiGet, apiStatus, statusEventually, statusOrWhy, StatusUnreadableError } from "./daemon-api.js";

/** Every file under `root`, as paths relative to it (for "nothing was created elsewhere"). */
export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

export type SignFn = (kind: number, content: string, tags: string[][], createdAt?: number) => NostrEvent;

/** Signs as `sk` with nostr-wasm (libsecp256k1): ~50x faster than pure JS, for thousands of events. */
export async function wasmSigner(sk: Uint8Array): Promise<SignFn> {
  const nw = await initNostrWasm();
  return (kind, content, tags, createdAt) => {
    const ev = { kind, content, tags, created_at: createdAt ?? Math.floor(Date.now() / 1000) } as NostrEvent;
    nw.finalizeEvent(ev, sk);
    return ev;
  };
}

/** Publishes in chunks (one connection each) and returns every id the relay accepted. */
export async function publishAll(url: string, events: readonly NostrEvent[], chunk = 25): Promise<string[]> {
  const accepted: string[] = [];
  for (let i = 0; i < events.length; i += chunk) accepted.push(...(await publishManyRaw(url, events.slice(i, i + chunk))));
  return accepted;
}

/**
 * A stream of the project's conversation events as the owner's clients send them: new kind 11
 * roots and NIP-22 replies in conversations already started, some of them as NDK's reply()
 * writes them (no `a` tag: the daemon finds them by their `P` tag). Every event is new.
 */
export class ProjectEvents {
  readonly roots: NostrEvent[] = [];
  private seq = 0;
  private readonly rootShare: number;
  private readonly untaggedShare: number;

  constructor(private readonly project: TestProject, private readonly sign: SignFn = project.signAsOwner,
    opts: { rootShare?: number; untaggedShare?: number } = {}) {
    this.rootShare = opts.rootShare ?? 0.15;
    this.untaggedShare = opts.untaggedShare ?? 0.2;
  }

  next(count: number, createdAt?: number): NostrEvent[] {
    const out: NostrEvent[] = [];
    for (let i = 0; i < count; i++) out.push(this.one(createdAt));
    return out;
  }

  private one(createdAt?: number): NostrEvent {
    const n = this.seq++;
    const a = ["a", this.project.coordinate];
    if (this.roots.length === 0 || Math.random() < this.rootShare) {
      const root = this.sign(11, `conversation ${n}`, [a, ["title", `Topic ${n}`]], createdAt);
      this.roots.push(root);
      return root;
    }
    const root = this.roots[Math.floor(Math.random() * this.roots.length)]!;
    const tags = [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id, "", root.pubkey], ["k", "11"]];
    return this.sign(1111, `message ${n} in ${root.id.slice(0, 8)}`, Math.random() < this.untaggedShare ? tags : [...tags, a], createdAt);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** For scripts/soak.mjs: appends `{ name, ...figures }` as a JSON line to $TENEXD_SOAK_OUT, if set. */
export function recordFigures(name: string, figures: Record<string, unknown>): void {
  console.info(`${name}: ${JSON.stringify(figures)}`);
  const out = process.env.TENEXD_SOAK_OUT;
  if (out) appendFileSync(out, `${JSON.stringify({ name, ...figures })}\n`);
}

/**
 * For the soak's per-case table (bench/soak-verdict.ts): what the case asked for and ran, what it
 * put through the daemon, and what was lost, doubled or let in. Record it before the checks, so a
 * failing case still shows its counts. Figures of the case's own ride along.
 */
export function recordCase(name: string, figures: Omit<CaseFigure, "name"> & Record<string, unknown>): void {
  recordFigures(name, figures);
}

/**
 * A count from the environment (the soak's sizes), or the suite's default. A value that is set
 * but is not a positive number is an error: falling back to the default would run a soak of 5
 * trials while the operator asked for 100.
 */
export const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`$${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return v;
};

/** Publishes `batch()` over and over, as fast as the relay takes it, until stopped. */
export function startPublisher(url: string, batch: () => NostrEvent[], onAccepted: (ids: string[]) => void): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      onAccepted(await publishManyRaw(url, batch()));
      await sleep(5);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
