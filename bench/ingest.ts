// Ingest "stored and indexed" (bench/goals.ts): the daemon's own InboundRoute over the real
// FileConversationLog (fsync'd, group commit), SqliteIndex, ConversationStore and queues in a
// temp dir, every signature checked by a VerifierPool on all cores, with the verifier the daemon
// would choose here (verifier-choice.ts). Events are submitted as
// fast as the pipeline takes them (none awaited before the next). The clock stops when the
// index holds every event: an event is acknowledged once durable in its log, and the index is
// fed after that, so "stored and indexed" ends later than the last acknowledgement (that rate
// is given in the notes).
//   ingest_1x5000_evps         one conversation of 5,000 events
//   ingest_1x5000_tail_ratio   the last 100 events against the first 100 (see below)
//   ingest_200x50_evps         200 conversations × 50 events, arriving interleaved
//   ingest_*_noverify_evps     the same without verification: what storage alone costs
//   ingest_200x50_noindex_evps that one without the index's writes either, its runs alternating
//                              with it: what the log, its fsyncs and the pipeline allow here

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationLog } from "../adapters/fs-log/index.js";
import { OnDemandIndexWriter, SqliteIndex } from "../adapters/sqlite-index/index.js";
import { chooseVerifier } from "../adapters/verify/verifier-choice.js";
import { poolWorkers, VerifierPool } from "../adapters/verify/verifier-pool.js";
import type { NostrEvent } from "../src/types.js";
import { configSchema } from "../daemon/config/config-schema.js";
import { ConversationQueues } from "../daemon/engine/ingest/conversation-queues.js";
import { IngestCounters } from "../daemon/engine/ingest/counters.js";
import { InboundRoute } from "../daemon/engine/ingest/route.js";
import { projectRecipients } from "../src/messaging/recipients.js";
import { ConversationStore } from "../daemon/engine/store/conversation-store.js";
import { evps, ingestCeiling, limitsText, median, round, type BenchContext } from "./bench-context.js";
import type { Figure } from "./figure.js";
import { GOALS, goalText } from "./goals.js";
import { benchKeys, benchProjectInfo, inArrivalOrder, loadDataset, SHAPES } from "./workload.js";

// The daemon's limits as config.json's defaults make them.
const LIMITS = configSchema.shape.limits.parse(undefined);
const CHUNK = 100;
// The daemon's choice (bcrypto native when it loads and passes its self-test, else nostr-wasm).
const BACKEND = chooseVerifier().backend;
// The pool's default size with that verifier (the daemon's), said in the notes.
const WORKERS = poolWorkers(BACKEND);

class IngestFailedError extends Error {
  override name = "IngestFailedError";
}

interface Harness {
  pipeline: InboundRoute;
  /** Resolves once everything acknowledged so far is applied to the index. */
  indexed(): Promise<void>;
  close(): Promise<void>;
}

/** `indexWrites` false: the index feeder runs as ever, but its batches are not written. */
async function harness(verify: boolean, indexWrites = true): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-ingest-bench-"));
  const info = benchProjectInfo(benchKeys());
  const log = new FileConversationLog(dir);
  const sqlite = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const index: SqliteIndex = indexWrites ? sqlite : Object.assign(Object.create(sqlite) as SqliteIndex, { applyBatch: () => undefined });
  const queues = new ConversationQueues(LIMITS.maxConcurrentConversations);
  const indexErrors: unknown[] = [];
  // As the daemon does: the index written on its own thread in a burst (a run without writes drops them here).
  const applier = indexWrites ? new OnDemandIndexWriter(sqlite) : undefined;
  const store = new ConversationStore({ log, index, ...(applier ? { applier } : {}), recipientsOf: projectRecipients(info), isBusy: (id) => queues.isBusy(id), onIndexError: (err) => indexErrors.push(err) });
  await store.init();
  const pool = verify ? new VerifierPool({ backend: BACKEND }) : undefined;
  const verifier = pool ?? { check: async () => "ok" as const };
  // Every agent is a mailbox here, as in the child-process benchmarks: no agent program runs.
  const pipeline = new InboundRoute({
    project: info, limits: LIMITS, verifier, store, queues, counters: new IngestCounters(),
    clock: { now: () => Date.now() }, runnable: new Map(), signers: new Map(),
  });
  return {
    pipeline,
    indexed: () => store.indexed(),
    close: async () => {
      await queues.idle();
      await pool?.close();
      await log.close();
      await store.indexed();
      await applier?.close();
      index.close();
      rmSync(dir, { recursive: true, force: true });
      if (indexErrors.length > 0) throw new IngestFailedError(`index apply failed: ${String(indexErrors[0])}`);
    },
  };
}

/** Ingests all at once; ms until every event is acknowledged. Throws unless every one was accepted. */
async function ingestAll(h: Harness, events: readonly NostrEvent[]): Promise<number> {
  const start = performance.now();
  const outcomes = await Promise.all(events.map((ev) => h.pipeline.ingest(ev)));
  const ms = performance.now() - start;
  const refused = outcomes.find((o) => o.status !== "accepted");
  if (refused) throw new IngestFailedError(`an event was not accepted: ${JSON.stringify(refused)}`);
  return ms;
}

/**
 * A fresh store, warmed on other conversations (JIT, worker threads), then `events` timed: ms
 * until all are acknowledged, and until all are in the index too.
 */
async function timedRun(events: readonly NostrEvent[], verify: boolean, warmup: readonly NostrEvent[], indexWrites = true): Promise<{ ms: number; indexedMs: number }> {
  const h = await harness(verify, indexWrites);
  try {
    await ingestAll(h, warmup);
    await h.indexed();
    const start = performance.now();
    const ms = await ingestAll(h, events);
    await h.indexed();
    return { ms, indexedMs: performance.now() - start };
  } finally {
    await h.close();
  }
}

/** Chunks of CHUNK events, each submitted at once and awaited (until indexed) before the next: ms per chunk. */
async function chunkTimes(events: readonly NostrEvent[], warmup: readonly NostrEvent[]): Promise<number[]> {
  const h = await harness(true);
  try {
    await ingestAll(h, warmup);
    await h.indexed();
    const times: number[] = [];
    for (let i = 0; i < events.length; i += CHUNK) {
      const start = performance.now();
      await ingestAll(h, events.slice(i, i + CHUNK));
      await h.indexed();
      times.push(performance.now() - start);
    }
    return times;
  } finally {
    await h.close();
  }
}

export async function benchIngest(ctx: BenchContext): Promise<Figure[]> {
  const [one, many, warm] = await Promise.all([
    loadDataset(SHAPES.one5000, ctx.progress), loadDataset(SHAPES.c200x50, ctx.progress), loadDataset(SHAPES.warmup, ctx.progress),
  ]);
  const single = one[0]!;
  const interleaved = inArrivalOrder(many);
  const warmup = inArrivalOrder(warm);
  const runs = ctx.quick ? 1 : 3;
  type Rate = { evps: number; spread: number[]; ackedEvps: number };
  // `variants` alternate run by run: this machine's speed drifts by ±25% within a minute, and
  // figures meant to be read side by side must see the same drift.
  const rates = async (events: readonly NostrEvent[], verify: boolean, variants: readonly boolean[] = [true]) => {
    const acked = variants.map((): number[] => []);
    const indexed = variants.map((): number[] => []);
    for (let r = 0; r < runs; r++) {
      for (const [i, indexWrites] of variants.entries()) {
        const t = await timedRun(events, verify, warmup, indexWrites);
        acked[i]!.push(t.ms);
        indexed[i]!.push(t.indexedMs);
      }
    }
    return variants.map((_, i): Rate => ({
      evps: evps(events.length, median(indexed[i]!)), spread: indexed[i]!.map((t) => evps(events.length, t)),
      ackedEvps: evps(events.length, median(acked[i]!)),
    }));
  };

  const rate = async (events: readonly NostrEvent[], verify: boolean) => (await rates(events, verify))[0]!;

  const one1 = await rate(single, true);
  const one1Raw = await rate(single, false);
  const many1 = await rate(interleaved, true);
  const [many1Raw, many1NoIndex] = (await rates(interleaved, false, [true, false])) as [Rate, Rate];
  const chunks = await chunkTimes(single, warmup);
  const first = chunks[0]!;
  const last = chunks[chunks.length - 1]!;

  const verified = ingestCeiling(ctx, true);
  const stored = ingestCeiling(ctx, false);
  const limitOf = (c: typeof verified) => (c ? { limit: c.evps } : {});
  const limitText = (c: typeof verified) => c?.text ?? "limit not measured";
  const runsText = (r: { spread: number[] }) => `${runs > 1 ? `median of ${runs} runs (${r.spread.join(", ")} ev/s)` : "one run"}; ` +
    `fresh temp dir per run, after a ${warmup.length}-event warm-up in other conversations`;
  const limits = limitsText(ctx);
  const ackedText = (r: { ackedEvps: number }) =>
    `until the last acknowledgement (every event durable in its log; the index is fed after it): ${r.ackedEvps} ev/s (median)`;
  return [
    {
      name: "ingest_1x5000_evps", value: one1.evps, unit: "ev/s", goal: goalText("ingest_1x5000_evps"), ...limitOf(verified),
      note: `1 conversation × ${single.length} real signed events, every signature verified (VerifierPool, ${WORKERS} worker${WORKERS === 1 ? "" : "s"}, ${BACKEND}: its default here), fsync'd log + SQLite index, until the index held them all; ${runsText(one1)}; ${ackedText(one1)}; ${limitText(verified)}; ${limits}`,
    },
    {
      name: "ingest_1x5000_tail_ratio", value: round(last / first, 2), unit: "×", goal: goalText("ingest_1x5000_tail_ratio"),
      note: `time of the last 100 events ÷ time of the first 100: the 5,000 events ingested (verified) in 50 chunks of 100, each chunk submitted at once and awaited until indexed; first ${round(first, 1)} ms, last ${round(last, 1)} ms; median of chunks 1-5 ${round(median(chunks.slice(0, 5)), 1)} ms, 46-50 ${round(median(chunks.slice(-5)), 1)} ms`,
    },
    {
      name: "ingest_1x5000_noverify_evps", value: one1Raw.evps, unit: "ev/s", goal: goalText("ingest_1x5000_noverify_evps"),
      ...limitOf(stored),
      note: `as ingest_1x5000_evps WITHOUT signature verification (stored and indexed only); ${runsText(one1Raw)}; ${ackedText(one1Raw)}; ${limitText(stored)}`,
    },
    {
      name: "ingest_200x50_evps", value: many1.evps, unit: "ev/s", goal: goalText("ingest_200x50_evps"), ...limitOf(verified),
      note: `200 conversations × 50 events in created_at order (interleaved), every signature verified, fsync'd log + SQLite index, until the index held them all; ${runsText(many1)}; ${ackedText(many1)}; ` +
        limitText(verified) +
        (verified !== undefined && verified.evps < GOALS.ingest_200x50_evps!.value ? ": the goal is above this machine's limit (ingest_200x50_noverify_evps is storage alone)" : ""),
    },
    {
      name: "ingest_200x50_noverify_evps", value: many1Raw.evps, unit: "ev/s", goal: goalText("ingest_200x50_noverify_evps"),
      ...limitOf(stored),
      note: `as ingest_200x50_evps WITHOUT signature verification (stored and indexed only); ${runsText(many1Raw)}; ${ackedText(many1Raw)}; ${limitText(stored)}`,
    },
    {
      name: "ingest_200x50_noindex_evps", value: many1NoIndex.evps, unit: "ev/s",
      note: `as ingest_200x50_noverify_evps without the index's writes (the feeder runs, its batches are dropped), each run right after one of that figure's: what the log, its fsyncs and the pipeline allow on this machine, the ceiling of the stored-and-indexed figure; ${runsText(many1NoIndex)}`,
    },
  ];
}
