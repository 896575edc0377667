// The daemon as a real child process: a project made from the example (`tenexd init
// --example`), pointed at test relays, started with `tenexd start --json`, killed or stopped.
// Needs dist/ (npm test builds it first).

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { getPublicKey, finalizeEvent } from "nostr-tools/pure";
import { decode } from "nostr-tools/nip19";
import type { NostrEvent } from "../../src/types.js";
import type { ProjectKeys } from "./events.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = join(ROOT, "bin/tenexd.js");

export interface TestProject {
  dir: string;
  tenexDir: string;
  coordinate: string;
  owner: { sk: Uint8Array; pubkey: string };
  agents: Record<string, string>;
  /** The agents' secret keys, by slug (to sign as an agent). */
  agentKeys: Record<string, Uint8Array>;
  /** Signs an event as the owner (a TENEX client user). */
  signAsOwner(kind: number, content: string, tags: string[][], createdAt?: number): NostrEvent;
}

const readKey = (file: string) => decode(readFileSync(file, "utf8").trim()).data as Uint8Array;

/** `tenexd init --example` into `dir`, then config changes (relays, limits…). */
export function makeProject(dir: string, patch: (config: Record<string, any>) => void = () => undefined): TestProject {
  const r = spawnSync(process.execPath, [BIN, "init", "--example", "--project", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`init failed: ${r.stderr}`);
  const tenexDir = join(dir, ".tenex");
  const configFile = join(tenexDir, "config.json");
  const config = JSON.parse(readFileSync(configFile, "utf8"));
  patch(config);
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const sk = readKey(join(tenexDir, "keys/owner.nsec"));
  const pubkey = getPublicKey(sk);
  const agents: Record<string, string> = {};
  const agentKeys: Record<string, Uint8Array> = {};
  for (const slug of ["orchestrator", "planner", "coder", "reviewer"]) {
    agentKeys[slug] = readKey(join(tenexDir, `keys/${slug}.nsec`));
    agents[slug] = getPublicKey(agentKeys[slug]);
  }
  const coordinate = `31933:${pubkey}:${config.project.d}`;
  return {
    dir, tenexDir, coordinate, owner: { sk, pubkey }, agents, agentKeys,
    signAsOwner: (kind, content, tags, createdAt) =>
      finalizeEvent({ kind, content, tags, created_at: createdAt ?? Math.floor(Date.now() / 1000) }, sk) as NostrEvent,
  };
}

/** The keys `tenexd init --example` made for `project`, to sign events as its owner and agents. */
export function projectKeys(project: TestProject): ProjectKeys {
  const key = (slug: string) => {
    const sk = readKey(join(project.tenexDir, `keys/${slug}.nsec`));
    return { sk, pubkey: getPublicKey(sk) };
  };
  const d = JSON.parse(readFileSync(join(project.tenexDir, "config.json"), "utf8")).project.d as string;
  return { owner: project.owner, orchestrator: key("orchestrator"), agents: { planner: key("planner"), coder: key("coder") }, d };
}

export interface RunningDaemon {
  child: ChildProcess;
  ready: { relays: string[]; ms: number; conversations: number };
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

export async function startDaemon(dir: string, timeoutMs = 20_000): Promise<RunningDaemon> {
  const child = spawn(process.execPath, [BIN, "start", "--project", dir, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  // "close": ended, and its output read to the end ("exit" can come before the last lines).
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const ready = await new Promise<RunningDaemon["ready"]>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`daemon not ready in ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      for (const line of out.split("\n")) {
        if (!line.startsWith('{"ready"')) continue;
        clearTimeout(timer);
        done(JSON.parse(line));
        return;
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      fail(new Error(`daemon exited (${code}) before ready; stderr: ${err}`));
    });
  });
  return {
    child, ready, stderr: () => err,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Every record of a conversation log, parsed. Read while the daemon runs, the last line may be
 * an append in progress (no newline yet): it is not a record yet and is left out.
 */
export function readLog(tenexDir: string, id: string): any[] {
  const text = readFileSync(join(tenexDir, "conversations", `${id}.jsonl`), "utf8");
  const lines = text.split("\n");
  lines.pop(); // "" after the last newline, or the line still being written
  return lines.map((l) => JSON.parse(l));
}
