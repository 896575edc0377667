// The floor beside the live ingest figures (live-ingest.ts): the least a host must do with the
// same 10,000 events down a live subscription on this machine, built as tenexd's design builds
// it. One process: each EVENT frame parsed once and dropped if its id was seen; signatures checked
// natively on two worker threads fed in batches; every verified event appended to its
// conversation's file, group commit (floor-journal.ts: a flush writes and fdatasyncs each file it
// touched, a new file's directory too); once durable, two rows an event (the message, a recipient)
// inserted on an index thread, a transaction a batch. No conversation state, no edge checks, no
// ordering within a conversation, no queues, no status. What tenexd does beyond this is what
// the ratio of its figures to this floor's prices.
//
// With --domain the host also does the conversation work tenexd's domain requires (the floor of
// the job, not only of its I/O): each event folded into its conversation, kept in memory, by
// src/'s own pure functions (decideInbound, stamp, applyRecords: the order within the
// conversation, its phase, turns and views) and who it sets to work decided (decideRuns); the
// records, not the bare event, are the lines appended. Still no edge checks, no queues, no
// arrival order across relays, no status, and the same two index rows.
//
// With --job (the floor of the whole job) the host folds as --domain does and, instead of the two
// rows, writes tenexd's own index: its schema, and the rows, words and aggregates its queries
// read, written by tenexd's own index thread (adapters/sqlite-index/worker-index-writer.ts) from
// the items tenexd's store makes (src/index-item.ts), one a conversation a flush, held while the
// flush writes and syncs its lines and committed once they are durable (held-batch.ts).
//
//   node dist/bench/ingest-floor-host.js RELAY_URL DIR [--backfill [SINCE]] [--domain | --job]   (DIR/index.sqlite: the count the benchmark polls)
// With --backfill the events come from a first back-fill paged as the daemon pages it (the floor
// of ingest_relay_200x50_evps), from SINCE (created_at) on if given (the floor of a catch-up,
// catchup_10k_ratio: it keeps no conversation, so it has none to read); the host prints `start` on stdout as it begins (its connection
// and first REQ follow, as the daemon's back-fill connects after its clock starts), and on
// stderr why a back-fill ended incomplete.

import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { previewOf } from "../adapters/sqlite-index/message-row.js";
import { SqliteIndex, WorkerIndexWriter } from "../adapters/sqlite-index/index.js";
import { indexItem } from "../src/index-item.js";
import { projectRecipients } from "../src/messaging/recipients.js";
import type { IndexItem } from "../src/ports.js";
import type { LogRecord } from "../src/records.js";
import { audienceOf } from "../src/backfill/project-filters.js";
import { stamp } from "../src/conversation.js";
import { applyRecords, emptyConversation } from "../src/conversation-reducer.js";
import type { Conversation } from "../src/conversation-state.js";
import { decideInbound } from "../src/inbound.js";
import { decideRuns } from "../src/runs.js";
import type { NostrEvent } from "../src/types.js";
import { conversationFile, FloorJournal } from "./floor-journal.js";
import { backfill, subscribeLive } from "./floor-subscribe.js";
import type { FloorRow } from "./ingest-floor-worker.js";
import { benchKeys, benchProjectInfo } from "./workload.js";

const job = process.argv.includes("--job");
const domain = job || process.argv.includes("--domain");
const [url, dir, mode, sinceArg] = process.argv.slice(2).filter((a) => a !== "--domain" && a !== "--job") as (string | undefined)[];
const since = sinceArg === undefined ? undefined : Number(sinceArg);
if (!url || !dir || (mode !== undefined && mode !== "--backfill") || (since !== undefined && !Number.isSafeInteger(since))) {
  throw new Error("usage: ingest-floor-host.js RELAY_URL DIR [--backfill [SINCE]] [--domain | --job]");
}

const WORKER = join(import.meta.dirname, "ingest-floor-worker.js");
const BATCH = 64;

const verifiers = [0, 1].map(() => new Worker(WORKER, { workerData: { role: "verify" } }));
const index = job ? undefined : new Worker(WORKER, { workerData: { role: "index", path: join(dir, "index.sqlite") } });
// --job: tenexd's own index (its schema, rows and aggregates) written by its own index thread.
const sqlite = job ? new SqliteIndex({ path: join(dir, "index.sqlite") }) : undefined;
const jobIndex = sqlite ? new WorkerIndexWriter(sqlite.path) : undefined;
const recipientsOf = projectRecipients(benchProjectInfo(benchKeys()));
// --job: a flush's items, one a conversation (as tenexd's store commits them): records and
// recipients in order, the row and numbers as of the last.
let items = new Map<string, IndexItem>();
let holding = false;
// --job: a flush's index items held (applied in a transaction left open) while its lines are
// written and synced, committed once they are durable, as tenexd's store does (held-batch.ts).
const journal = await FloorJournal.open(dir, true, job ? {
  writing: () => {
    if (items.size === 0) return;
    void jobIndex!.hold([...items.values()]);
    items = new Map();
    holding = true;
  },
  durable: () => {
    if (holding) void jobIndex!.commit();
    holding = false;
  },
} : undefined);

// Batches to the verifiers, in turn; each answers its own in the order it got them.
const sent = verifiers.map(() => [] as NostrEvent[][]);
let next = 0;
let pending: NostrEvent[] = [];
let scheduled = false;
verifiers.forEach((w, i) => w.on("message", (oks: boolean[]) => {
  const batch = sent[i]!.shift()!;
  batch.forEach((ev, k) => oks[k] && store(ev));
}));

function verify(ev: NostrEvent): void {
  pending.push(ev);
  if (pending.length >= BATCH) post();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(post);
  }
}

function post(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const i = next++ % verifiers.length;
  sent[i]!.push(pending);
  verifiers[i]!.postMessage(pending);
  pending = [];
}

// The index's rows wait for the turn's end and go as one batch.
const lastN = new Map<string, number>();
let rows: FloorRow[] = [];
function store(ev: NostrEvent): void {
  const conv = conversationFile(ev);
  if (job) {
    const fold = folded(conv, ev);
    const item = itemOf(fold);
    journal.append(conv, fold.line, undefined, () => {
      const before = items.get(conv);
      items.set(conv, before ? merged(before, item) : { ...item, records: [...item.records], recipients: [...item.recipients] });
    });
    return;
  }
  const n = (lastN.get(conv) ?? 0) + 1;
  lastN.set(conv, n);
  const to = ev.tags.find((t) => t[0] === "p")?.[1] ?? ev.pubkey;
  const line = domain ? folded(conv, ev).line : `${JSON.stringify(ev)}\n`;
  journal.append(conv, line, () => {
    if (rows.length === 0) setImmediate(flushRows);
    rows.push([conv, n, ev.id, ev.pubkey, ev.created_at, previewOf(ev.content), to]);
  });
}

// --domain: the conversations, in memory as tenexd keeps them.
const project = benchProjectInfo(benchKeys());
const conversations = new Map<string, Conversation>();
const NOBODY = new Map<string, never>(); // every agent a mailbox, as in the daemon's bench project

interface Fold {
  conv: Conversation;
  records: LogRecord[];
  /** The records' lines, what is appended. */
  line: string;
}

/** The event folded into its conversation `id`. */
function folded(id: string, ev: NostrEvent): Fold {
  let conv = conversations.get(id);
  if (!conv) conversations.set(id, (conv = emptyConversation(id, project.coordinate)));
  const records = stamp(conv, decideInbound(conv, ev, "relay", Date.now()));
  applyRecords(conv, records);
  decideRuns(conv, ev, project, NOBODY);
  return { conv, records, line: records.map((r) => `${JSON.stringify(r)}\n`).join("") };
}

// --job: each log's size, which tenexd's index keeps too (log_ends).
const logBytes = new Map<string, number>();

/** The index item of a fold's records, taken as they are folded (the conversation as of the last of them). */
function itemOf({ conv, records, line }: Fold): IndexItem {
  const bytes = (logBytes.get(conv.id) ?? 0) + Buffer.byteLength(line);
  logBytes.set(conv.id, bytes);
  return indexItem(conv, records, recipientsOf, bytes);
}

/** `b` added to `a` (a flush's item of the conversation so far, whose arrays are its own copies): `a`. */
function merged(a: IndexItem, b: IndexItem): IndexItem {
  (a.records as LogRecord[]).push(...b.records);
  (a.recipients as (readonly string[])[]).push(...b.recipients);
  if (Object.keys(b.turnNumbers).length > 0) a.turnNumbers = { ...a.turnNumbers, ...b.turnNumbers };
  if (Object.keys(b.sessions).length > 0) a.sessions = { ...a.sessions, ...b.sessions };
  a.row = b.row;
  if (b.logBytes !== undefined) a.logBytes = b.logBytes;
  return a;
}

function flushRows(): void {
  index!.postMessage(rows);
  rows = [];
}

const seen = new Set<string>();
const take = (ev: NostrEvent) => {
  if (seen.has(ev.id)) return;
  seen.add(ev.id);
  verify(ev);
};
const ws = mode === "--backfill" ? undefined : subscribeLive(url, take);
if (mode === "--backfill") {
  process.stdout.write("start\n");
  // The daemon's audience: the same filters, so the relay does the same work.
  void backfill(url, audienceOf(benchProjectInfo(benchKeys())), take, since).then(
    (r) => r.complete || process.stderr.write(`floor back-fill incomplete: ${r.reason ?? "no reason"}\n`),
    (err: unknown) => process.stderr.write(`floor back-fill failed: ${String(err)}\n`),
  );
}

process.on("SIGTERM", () => {
  ws?.close();
  void journal.close().then(async () => {
    await jobIndex?.close();
    sqlite?.close();
    // The threads end themselves (a verifier terminated from outside inside bcrypto's native code aborts the process).
    const threads = [...verifiers, ...(index ? [index] : [])];
    const ended = threads.map((w) => new Promise((r) => w.once("exit", r)));
    for (const w of threads) w.postMessage("close");
    await Promise.all(ended);
    process.exit(0);
  });
});
