// One run of the live path in one process (bench/live-path.ts starts one per variant and round):
// the events of 200 × 50 as text frames, a socket's worth a turn, each parsed and matched against
// the project's filters as the live subscription does, handed on through its backlog
// (adapters/nostr/live-backlog.ts, a slice a turn) to the daemon's route, a turn's events
// together as relay-sync.ts hands them (InboundRoute.fromRelayMany), with its real parts:
// the on-demand verifier, the fsync'd log, the store and the index on its own thread. Then a
// second 10,000 (200 new conversations) through the same process: the warm phase.
//
// `node dist/bench/live-path-run.js [--without verify,index,log,sync,write] [--threads]` prints one
// JSON line: per phase the rate, the main thread's CPU an event and every thread's (from
// /proc/self/task); with --threads also every thread's by its name (by "name:tid": Node's threads
// share one name, so a thread is told apart by its share: the verifier's, the index's, V8's).
// Without a stage, what stands in for it does nothing: a verifier that says "ok", an index whose
// batches are dropped (the feeder still runs), a log whose appends are durable at once and kept
// nowhere; `sync` and `write` keep the log and leave out its syncs or its writes. No relay, no
// socket, no second process: the main thread's work is the daemon's, without ws's frame parsing
// and the load generator's share of the cores.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { matchFilters, type Filter } from "nostr-tools/filter";
import { FileConversationLog } from "../adapters/fs-log/index.js";
import { nodeFileOps, type FileOps } from "../adapters/fs-log/file-ops.js";
import { LiveBacklog } from "../adapters/nostr/live-backlog.js";
import { OnDemandIndexWriter, SqliteIndex } from "../adapters/sqlite-index/index.js";
import { VerifiedEventJson } from "../adapters/verify/event-json.js";
import { OnDemandVerifier } from "../adapters/verify/on-demand-verifier.js";
import { configSchema } from "../daemon/config/config-schema.js";
import { ConversationQueues } from "../daemon/engine/ingest/conversation-queues.js";
import { IngestCounters } from "../daemon/engine/ingest/counters.js";
import { InboundRoute, type SliceItem } from "../daemon/engine/ingest/route.js";
import { SliceCollector } from "../daemon/engine/ingest/slice-collector.js";
import { ConversationStore } from "../daemon/engine/store/conversation-store.js";
import { audienceOf, projectFilters } from "../src/backfill/project-filters.js";
import { projectRecipients } from "../src/messaging/recipients.js";
import type { ConversationLog } from "../src/ports.js";
import { cpuSecondsOf } from "./child-daemon.js";
import { DiscardLog } from "./discard-log.js";
import type { PhaseCpu } from "./live-path.js";
import { benchKeys, benchProjectInfo, inArrivalOrder, loadDataset, SHAPES } from "./workload.js";

const LIMITS = configSchema.shape.limits.parse(undefined);
// libuv reads up to 32 chunks of 64 KB a turn; frames here are ~1.6 KB: a socket read's worth.
const FRAMES_PER_TURN = 40;

/** CPU (µs) of each thread of this process, by thread id, and each thread's name. */
function threadCpu(names?: Map<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      out.set(tid, cpuSecondsOf(process.pid, Number(tid)) * 1e6);
      if (names && !names.has(tid)) names.set(tid, readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim());
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/**
 * The log's file calls, `sync` (its fdatasyncs and directory syncs) and `write` (its writes) left
 * out when asked: the log's own work on the main thread without the disk's (the default file
 * calls otherwise, and the urgent lane's thread).
 */
function logCalls(without: ReadonlySet<string>): { fileOps?: FileOps } {
  if (!without.has("sync") && !without.has("write")) return {};
  const ops: FileOps = { ...nodeFileOps };
  if (without.has("sync")) Object.assign(ops, { fdatasync: async () => {}, syncDir: async () => {} });
  if (without.has("write")) ops.write = async (_fd, _buf, _offset, length) => length;
  return { fileOps: ops };
}

const frames = (events: readonly unknown[]) => events.map((ev) => JSON.stringify(["EVENT", "live", ev]));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { without: { type: "string", default: "" }, threads: { type: "boolean", default: false } } });
  const without = new Set(values.without.split(",").filter(Boolean));
  const dir = mkdtempSync(join(tmpdir(), "tenexd-live-path-"));
  const keys = benchKeys();
  const info = benchProjectInfo(keys);
  // As the engine wires them (daemon/engine/engine.ts): the verifier's workers serialize the events, the log writes that.
  const eventJson = new VerifiedEventJson();
  const log: ConversationLog = without.has("log") ? new DiscardLog() : new FileConversationLog(dir, { eventJson, ...logCalls(without) });
  const sqlite = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const index = without.has("index") ? Object.assign(Object.create(sqlite) as SqliteIndex, { applyBatch: () => undefined }) : sqlite;
  const applier = without.has("index") ? undefined : new OnDemandIndexWriter(sqlite);
  const queues = new ConversationQueues(LIMITS.maxConcurrentConversations);
  let indexErrors = 0;
  // Nothing evicted: a discarded log could not give an evicted conversation back.
  const store = new ConversationStore({
    log, index, ...(applier ? { applier } : {}), recipientsOf: projectRecipients(info), maxCachedBytes: 1e12,
    isBusy: (id) => queues.isBusy(id), onIndexError: () => void indexErrors++,
  });
  await store.init();
  const verifier = without.has("verify")
    ? { check: async () => "ok" as const, checkMany: async (evs: readonly unknown[]) => evs.map(() => "ok" as const) }
    : new OnDemandVerifier({ pool: { eventJson } });
  const route = new InboundRoute({
    project: info, limits: LIMITS, verifier, store, queues, counters: new IngestCounters(),
    clock: { now: () => Date.now() }, runnable: new Map(), signers: new Map(),
  });
  const filters = projectFilters(audienceOf(info)) as Filter[];
  let settled = 0;
  let refused = 0;
  // As relay-sync.ts takes them in: a turn's events routed together.
  const slices = new SliceCollector<SliceItem>((items) => route.fromRelayMany(items, (_i, o) => {
    settled++;
    if (o.status !== "accepted") refused++;
  }, () => {
    settled++;
    refused++;
  }));
  const backlog = new LiveBacklog((ev, url) => slices.add({ raw: ev, relay: url, quiet: false }));
  // As live-subscription.ts takes a frame off the socket.
  const onFrame = (text: string) => {
    const msg = JSON.parse(text) as unknown[];
    const ev = msg[2] as Parameters<typeof matchFilters>[1];
    if (msg[0] === "EVENT" && matchFilters(filters, ev)) backlog.add(ev, "ws://bench");
  };
  const phase = async (texts: readonly string[]): Promise<PhaseCpu & { threads?: Record<string, number> }> => {
    const target = settled + texts.length;
    const names = new Map<string, string>();
    const before = threadCpu(names);
    const started = performance.now();
    for (let i = 0; i < texts.length; i += FRAMES_PER_TURN) {
      for (const text of texts.slice(i, i + FRAMES_PER_TURN)) onFrame(text);
      await nextTurn();
    }
    while (settled < target) await new Promise((resolve) => setTimeout(resolve, 2));
    await store.indexed();
    const ms = performance.now() - started;
    const after = threadCpu(names);
    let all = 0;
    const byName: Record<string, number> = {};
    for (const [tid, us] of after) {
      all += us - (before.get(tid) ?? 0);
      const name = tid === String(process.pid) ? "main" : `${names.get(tid) ?? "?"}:${tid}`;
      byName[name] = (byName[name] ?? 0) + (us - (before.get(tid) ?? 0)) / texts.length;
    }
    const main = (after.get(String(process.pid)) ?? 0) - (before.get(String(process.pid)) ?? 0);
    const threads = values.threads ? Object.fromEntries(Object.entries(byName).map(([k, v]) => [k, Math.round(v)])) : undefined;
    return { evps: Math.round(texts.length / (ms / 1000)), mainUs: Math.round(main / texts.length), allUs: Math.round(all / texts.length), ...(threads ? { threads } : {}) };
  };
  const cold = frames(inArrivalOrder(await loadDataset(SHAPES.c200x50)));
  const warm = frames(inArrivalOrder(await loadDataset(SHAPES.warm200x50)));
  const result = { cold: await phase(cold), warm: await phase(warm), refused, indexErrors };
  await queues.idle();
  if ("close" in verifier) await verifier.close();
  await log.close();
  await applier?.close();
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
