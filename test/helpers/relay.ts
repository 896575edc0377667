// Real relays for tests, on 127.0.0.1 only: in-process (startTestRelay) or as a child process
// that can be SIGKILLed and restarted on the same port and database (spawnRelay); plus a plain
// `ws` client (publishRaw, queryRaw, sendRawFrame) that bypasses every library under test.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { finalizeEvent } from "nostr-tools/pure";
import { WebSocket } from "ws";
import { startEmbeddedRelay, type RelayGuardOptions } from "../../adapters/relay/embedded-relay.js";
import { authEventTemplate } from "../../src/relay-guard/nip42.js";
import type { RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { tempDir } from "./temp-dir.js";

const RELAY_MAIN = resolve(import.meta.dirname, "../../dist/adapters/relay/relay-main.js");
// Generous: on 2 cores shared with other test runs a relay took over 10 s to start, and over 5 s
// to verify and store a batch of 100 events. These bound a hang; they measure nothing.
const READY_TIMEOUT_MS = 30_000;
const RAW_TIMEOUT_MS = 5_000;
/** More time per event sent in one exchange (the relay verifies each signature). */
const RAW_TIMEOUT_PER_EVENT_MS = 200;

// Removed after the test file (temp-dir.ts): a relay restarted on the same database keeps it till then.
const tempDb = () => join(tempDir("tenexd-relay-"), "relay.sqlite");

export interface TestRelay {
  url: string;
  port: number;
  dbPath: string;
  close(): Promise<void>;
}

/** An embedded relay in this process, on a free port, over a temporary (or given) database; open unless `guard` says otherwise. */
export async function startTestRelay(opts: { port?: number; dbPath?: string; guard?: RelayGuardOptions } = {}): Promise<TestRelay & { stats: () => ReturnType<Awaited<ReturnType<typeof startEmbeddedRelay>>["stats"]> }> {
  const dbPath = opts.dbPath ?? tempDb();
  const relay = await startEmbeddedRelay({ port: opts.port ?? 0, dbPath, ...(opts.guard ? { guard: opts.guard } : {}) });
  return { url: relay.url, port: relay.port, dbPath, close: relay.close, stats: relay.stats };
}

export interface SpawnedRelay {
  url: string;
  port: number;
  dbPath: string;
  pid(): number | undefined;
  /** Sends `signal` (default SIGKILL) and resolves, with how it ended, once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<ChildExit>;
  /** Starts the relay again on the same port and database (kills it first if still running). */
  restart(): Promise<void>;
  /** SIGTERM and wait; safe to call when already dead. */
  close(): Promise<ChildExit>;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The relay as a child process (`node dist/adapters/relay/relay-main.js`; needs a build). Open,
 * unless `flags` turn protections on (relay-main-args.ts).
 */
export async function spawnRelay(opts: { port?: number; dbPath?: string; flags?: string[] } = {}): Promise<SpawnedRelay> {
  if (!existsSync(RELAY_MAIN)) throw new Error(`${RELAY_MAIN} missing: run \`npx tsc -p tsconfig.build.json\` first`);
  const dbPath = opts.dbPath ?? tempDb();
  const flags = opts.flags ?? [];
  let child: ChildProcess;
  let url: string;
  ({ child, url } = await startChild(opts.port ?? 0, dbPath, flags));
  const port = Number(new URL(url).port);

  const kill = async (signal: NodeJS.Signals = "SIGKILL"): Promise<ChildExit> => {
    if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
    const gone = new Promise<ChildExit>((r) => child.once("exit", (code, sig) => r({ code, signal: sig })));
    child.kill(signal);
    return gone;
  };
  return {
    url,
    port,
    dbPath,
    pid: () => child.pid,
    kill,
    restart: async () => {
      await kill();
      ({ child, url } = await startChild(port, dbPath, flags));
    },
    close: () => kill("SIGTERM"),
  };
}

async function startChild(port: number, dbPath: string, flags: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [RELAY_MAIN, "--port", String(port), "--db", dbPath, ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A relay left behind by a crashed test run would hold its port forever.
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));

  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`relay did not print READY within ${READY_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, READY_TIMEOUT_MS);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^READY (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.once("exit", (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`relay exited (code ${code}, signal ${sig}) before READY; stderr: ${stderr}`));
    });
  });
  return { child, url };
}

/** Opens a plain websocket, runs `body`, always closes; fails after `timeoutMs`. */
function withSocket<T>(url: string, body: (ws: WebSocket, done: (v: T) => void, fail: (e: Error) => void) => void, timeoutMs = RAW_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolveP, rejectP) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => finish(() => rejectP(new Error(`raw relay exchange with ${url} timed out after ${timeoutMs} ms`))), timeoutMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      ws.terminate();
      settle();
    };
    ws.once("error", (e) => finish(() => rejectP(e)));
    ws.once("open", () => body(ws, (v) => finish(() => resolveP(v)), (e) => finish(() => rejectP(e))));
  });
}

const frames = (ws: WebSocket, on: (msg: unknown[]) => void) =>
  ws.on("message", (data) => on(JSON.parse(String(data)) as unknown[]));

/**
 * Sends EVENT and returns the relay's OK answer. With `auth` (a secret key) it first answers the
 * relay's AUTH challenge (NIP-42), as a client of a relay that requires AUTH for writes must.
 */
export function publishRaw(url: string, event: NostrEvent, opts: { auth?: Uint8Array } = {}): Promise<{ accepted: boolean; message: string }> {
  return withSocket(url, (ws, done, fail) => {
    const send = () => ws.send(JSON.stringify(["EVENT", event]));
    const authed = authAnswerer(ws, url, opts.auth, send, fail);
    frames(ws, (m) => {
      if (authed(m)) return;
      if (m[0] === "OK" && m[1] === event.id) done({ accepted: m[2] === true, message: String(m[3] ?? "") });
    });
    if (!opts.auth) send();
  });
}

/** Answers the relay's AUTH challenge with `sk`, then calls `then`; true for the frames it handled. */
function authAnswerer(ws: WebSocket, url: string, sk: Uint8Array | undefined, then: () => void, fail: (err: Error) => void): (m: unknown[]) => boolean {
  let authId: string | undefined;
  return (m) => {
    if (m[0] === "AUTH" && sk) {
      const ev = finalizeEvent(authEventTemplate(String(m[1]), url, Math.floor(Date.now() / 1000)), sk);
      authId = ev.id;
      ws.send(JSON.stringify(["AUTH", ev]));
      return true;
    }
    if (m[0] !== "OK" || authId === undefined || m[1] !== authId) return false;
    if (m[2] === true) then();
    else fail(new Error(`relay refused our AUTH: ${String(m[3])}`));
    return true;
  };
}

/** Sends many EVENTs on one connection and returns the ids the relay accepted (OK true). */
export function publishManyRaw(url: string, events: readonly NostrEvent[]): Promise<string[]> {
  return withSocket(url, (ws, done) => {
    const accepted: string[] = [];
    let answered = 0;
    frames(ws, (m) => {
      if (m[0] !== "OK") return;
      if (m[2] === true) accepted.push(String(m[1]));
      if (++answered === events.length) done(accepted);
    });
    for (const ev of events) ws.send(JSON.stringify(["EVENT", ev]));
    if (events.length === 0) done(accepted);
  }, RAW_TIMEOUT_MS + RAW_TIMEOUT_PER_EVENT_MS * events.length);
}

/**
 * Sends REQ and returns the stored events up to EOSE; rejects if the relay closes the query. With
 * `auth` (a secret key) it first answers the relay's AUTH challenge (NIP-42), as a client of a
 * daemon's embedded relay must to read anything.
 */
export async function queryRaw(url: string, filter: RelayFilter, opts: { auth?: Uint8Array } = {}): Promise<NostrEvent[]> {
  const r = await reqRaw(url, filter, opts);
  if (r.closed !== undefined) throw new Error(`relay closed the query: ${r.closed}`);
  return r.events;
}

/** REQ as queryRaw, but a CLOSED is an answer: the events sent before it and the relay's reason. */
export function reqRaw(url: string, filter: RelayFilter, opts: { auth?: Uint8Array } = {}): Promise<{ events: NostrEvent[]; closed?: string }> {
  const subId = `raw-${Math.random().toString(36).slice(2, 10)}`;
  return withSocket(url, (ws, done, fail) => {
    const events: NostrEvent[] = [];
    const req = () => ws.send(JSON.stringify(["REQ", subId, filter]));
    const authed = authAnswerer(ws, url, opts.auth, req, fail);
    frames(ws, (m) => {
      if (authed(m) || m[1] !== subId) return;
      if (m[0] === "EVENT") events.push(m[2] as NostrEvent);
      else if (m[0] === "EOSE") done({ events });
      else if (m[0] === "CLOSED") done({ events, closed: String(m[2]) });
    });
    if (!opts.auth) req();
  });
}

/**
 * A live subscription (after AUTH with `sk`): the events the relay sends for `filter` from now on
 * gather in `events` until `close()`. Resolves once the relay has answered the REQ (EOSE).
 */
export function liveRaw(url: string, filter: RelayFilter, sk: Uint8Array): Promise<{ events: NostrEvent[]; close(): void }> {
  const subId = `live-${Math.random().toString(36).slice(2, 10)}`;
  const ws = new WebSocket(url);
  const events: NostrEvent[] = [];
  const close = () => ws.terminate();
  return new Promise((resolveP, rejectP) => {
    const timer = setTimeout(() => (close(), rejectP(new Error(`no EOSE from ${url} within ${RAW_TIMEOUT_MS} ms`))), RAW_TIMEOUT_MS);
    const fail = (e: Error) => (clearTimeout(timer), close(), rejectP(e));
    ws.once("error", fail);
    ws.once("open", () => {
      const authed = authAnswerer(ws, url, sk, () => ws.send(JSON.stringify(["REQ", subId, { ...filter, limit: 0 }])), fail);
      frames(ws, (m) => {
        if (authed(m) || m[1] !== subId) return;
        if (m[0] === "EVENT") events.push(m[2] as NostrEvent);
        else if (m[0] === "EOSE") (clearTimeout(timer), resolveP({ events, close }));
        else if (m[0] === "CLOSED") fail(new Error(`relay closed the subscription: ${String(m[2])}`));
      });
    });
  });
}

/** Sends `text` as one frame and returns the frames the relay sent back within `waitMs`. */
export function sendRawFrame(url: string, text: string, waitMs = 1_000): Promise<string[]> {
  return withSocket(url, (ws, done) => {
    const got: string[] = [];
    ws.on("message", (data) => got.push(String(data)));
    ws.send(text);
    setTimeout(() => done(got), waitMs);
  });
}
