// The benchmarks' shared workload: real signed events (~0.8 KB content) in conversations among
// a project owner and four agents, signed with nostr-wasm on every core and cached under
// os.tmpdir() so that a second run (and the 1,000,000-event set above all) costs no signing.
// One file per shape: a header line, then one line per conversation (a JSON array of events).
// The same key set signs every shape, so one bench project can hold any of them.

import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { formatCoordinate } from "../src/coordinate.js";
import type { NostrEvent, ProjectInfo } from "../src/types.js";
import { signShape, type Tail } from "./workload-signer.js";

const FORMAT = 1;
export const CACHE_DIR = join(tmpdir(), "tenexd-bench-cache");
export const BENCH_D = "tenexd-bench";
/** Start of the benchmark's timeline (June 2025): in the past, so no event is "from the future". */
export const T0 = 1_750_000_000;

export interface BenchKey {
  sk: string;
  pubkey: string;
}

export interface BenchAgent extends BenchKey {
  slug: string;
  name: string;
  orchestrator: boolean;
}

export interface BenchKeys {
  owner: BenchKey;
  agents: BenchAgent[];
}

export interface Shape {
  /** Names the cache file and appears in every event's content. */
  name: string;
  conversations: number;
  perConversation: number;
  /** created_at of the first event; then one event per second, conversations interleaved. */
  firstCreatedAt: number;
  /** Add replies to that shape's conversations instead of starting new ones. */
  continues?: Shape;
}

export const SHAPES = {
  warmup: { name: "warmup-4x100", conversations: 4, perConversation: 100, firstCreatedAt: T0 - 10_000 },
  one5000: { name: "1x5000", conversations: 1, perConversation: 5000, firstCreatedAt: T0 },
  c200x50: { name: "200x50", conversations: 200, perConversation: 50, firstCreatedAt: T0 + 100_000 },
  /** 200 more conversations of 50, newer than 200x50 and its missed replies: the live ingest's warm phase. */
  warm200x50: { name: "200x50-warm", conversations: 200, perConversation: 50, firstCreatedAt: T0 + 120_000 },
  million: { name: "20000x50", conversations: 20_000, perConversation: 50, firstCreatedAt: T0 - 2_000_000 },
} satisfies Record<string, Shape>;
/** 50 more replies in each of the 200 conversations, newer than all of them: what a stopped daemon missed. */
export const MISSED_200x50: Shape = {
  name: "200x50-missed", conversations: 200, perConversation: 50, firstCreatedAt: T0 + 110_000, continues: SHAPES.c200x50,
};

const AGENTS = [["orchestrator", "Orchestrator"], ["planner", "Planner"], ["coder", "Coder"], ["reviewer", "Reviewer"]] as const;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const newKey = (): BenchKey => {
  const sk = generateSecretKey();
  return { sk: hex(sk), pubkey: getPublicKey(sk) };
};

/** The bench project's keys, made once and kept in the cache (the cached events are signed with them). */
export function benchKeys(): BenchKeys {
  const file = join(CACHE_DIR, "keys.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as BenchKeys;
  mkdirSync(CACHE_DIR, { recursive: true });
  const keys: BenchKeys = {
    owner: newKey(),
    agents: AGENTS.map(([slug, name]) => ({ slug, name, orchestrator: slug === "orchestrator", ...newKey() })),
  };
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

export const benchCoordinate = (keys: BenchKeys) => formatCoordinate(keys.owner.pubkey, BENCH_D);

export function benchProjectInfo(keys: BenchKeys): ProjectInfo {
  return {
    coordinate: benchCoordinate(keys),
    ownerPubkey: keys.owner.pubkey,
    whitelist: [keys.owner.pubkey],
    agents: keys.agents.map((a) => ({ slug: a.slug, name: a.name, pubkey: a.pubkey, role: a.slug, isOrchestrator: a.orchestrator })),
  };
}

const fileOf = (shape: Shape) => join(CACHE_DIR, `${shape.name}.v${FORMAT}.jsonl`);
const headerOf = (shape: Shape, keys: BenchKeys) => JSON.stringify({ format: FORMAT, owner: keys.owner.pubkey, shape });

/** True when the shape's events are signed and cached already (no signing cost this run). */
export const datasetCached = (shape: Shape): Promise<boolean> => headerMatches(shape, benchKeys());

async function headerMatches(shape: Shape, keys: BenchKeys): Promise<boolean> {
  if (!existsSync(fileOf(shape))) return false;
  const lines = createInterface({ input: createReadStream(fileOf(shape), { end: 4096 }) });
  for await (const line of lines) {
    lines.close();
    return line === headerOf(shape, keys);
  }
  return false;
}

/** Makes sure the shape's events are signed and cached; `progress` hears about long signing runs. */
export async function ensureDataset(shape: Shape, progress: (msg: string) => void = () => undefined): Promise<string> {
  const keys = benchKeys();
  const file = fileOf(shape);
  if (await headerMatches(shape, keys)) return file;
  const tails = shape.continues ? await tailsOf(shape.continues, progress) : undefined;
  await signShape({ shape, keys, coordinate: benchCoordinate(keys), path: `${file}.partial`, header: headerOf(shape, keys), progress, tails });
  renameSync(`${file}.partial`, file);
  return file;
}

async function tailsOf(base: Shape, progress: (msg: string) => void): Promise<Tail[]> {
  await ensureDataset(base, progress);
  const tails: Tail[] = [];
  for await (const conv of readDataset(base)) {
    const root = conv[0]!;
    const last = conv[conv.length - 1]!;
    tails.push({ root: { id: root.id, pubkey: root.pubkey }, last: { id: last.id, pubkey: last.pubkey, kind: last.kind }, count: conv.length });
  }
  return tails;
}

/** The shape's conversations, one array of events each, from conversation `from` on (ensureDataset first). */
export async function* readDataset(shape: Shape, from = 0): AsyncGenerator<NostrEvent[]> {
  const lines = createInterface({ input: createReadStream(fileOf(shape)), crlfDelay: Infinity });
  let c = -1; // the header line comes first
  for await (const line of lines) {
    if (c++ < from || line.length === 0) continue;
    yield JSON.parse(line) as NostrEvent[];
  }
}

/** created_at of the shape's newest event. */
export const newestCreatedAt = (s: Shape): number => s.firstCreatedAt + (s.perConversation - 1) * s.conversations + s.conversations - 1;

/** Every event of the shape created at `since` or later (parsing only the conversations that can hold one). */
export async function eventsSince(shape: Shape, since: number): Promise<NostrEvent[]> {
  await ensureDataset(shape);
  // Conversation c's last event is at first + (P - 1) * C + c: earlier conversations end before `since`.
  const from = Math.max(0, since - shape.firstCreatedAt - (shape.perConversation - 1) * shape.conversations);
  const events: NostrEvent[] = [];
  for await (const conv of readDataset(shape, from)) events.push(...conv.filter((ev) => ev.created_at >= since));
  return events;
}

/** ensureDataset + every conversation in memory (for the shapes of 10,000 events or so). */
export async function loadDataset(shape: Shape, progress?: (msg: string) => void): Promise<NostrEvent[][]> {
  await ensureDataset(shape, progress);
  const all: NostrEvent[][] = [];
  for await (const conv of readDataset(shape)) all.push(conv);
  return all;
}

/** Every event of every conversation in created_at order: how they arrive live. */
export function inArrivalOrder(conversations: readonly NostrEvent[][]): NostrEvent[] {
  return conversations.flat().sort((a, b) => a.created_at - b.created_at);
}
