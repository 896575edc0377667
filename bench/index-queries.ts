// The SQLite index at scale (bench/goals.ts): 1,000,000 messages applied through the index's own
// writer (one transaction per 1,000 records, conversations of 1,000 messages, 10 agents, read
// marks and acks as agents would leave them), then the median time of the queries the daemon and
// the Director run: one agent's unread count, its inbox page, the full stats.
// Events are unsigned look-alikes: the index never verifies, and signing 1M events would take
// longer than everything else together.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteIndex } from "../adapters/sqlite-index/sqlite-index.js";
import { emptyConversation } from "../src/conversation-reducer.js";
import type { Conversation } from "../src/conversation-state.js";
import { indexItem } from "../src/index-item.js";
import { pTagRecipients } from "../src/messaging/recipients.js";
import type { LogRecord } from "../src/records.js";
import type { NostrEvent } from "../src/types.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";
import { measureSqliteInsertLimit } from "./sqlite-limit.js";

const PER_CONVERSATION = 1000;
const AGENTS = 10;
const NOW_S = 1_700_000_000;
const NOW_MS = NOW_S * 1000;
const SPAN_S = 30 * 24 * 3600;
const PRIORITIES = ["critical", "high", "low"] as const;

const hex = () => randomBytes(32).toString("hex");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Deterministic pseudo-random numbers, so every run indexes the same shape of data. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** One conversation's log: messages among 4 of the agents, read marks every ~25, acks now and then. */
function conversationLog(c: number, conversations: number, agents: readonly string[], random: () => number) {
  const id = hex();
  const members = [0, 1, 2, 3].map((k) => agents[(c + k * 3) % agents.length]!);
  const start = NOW_S - SPAN_S + Math.floor((c * SPAN_S) / conversations);
  const records: LogRecord[] = [];
  let n = 0;
  for (let i = 0; i < PER_CONVERSATION; i++) {
    const author = members[i % 4]!;
    const to = [members[(i + 1) % 4]!, ...(random() < 0.1 ? [members[(i + 2) % 4]!] : [])];
    const roll = random();
    const priority = roll < 0.2 ? PRIORITIES[Math.floor(roll * 15)] : undefined;
    const createdAt = start + i * 2;
    const tags = [
      ["E", id, "", members[0]!], ["a", "31933:bench:bench"], ...to.map((p) => ["p", p]),
      ...(priority ? [["priority", priority]] : []),
      ...(random() < 0.02 ? [["expiration", String(createdAt + 3600)]] : []),
    ];
    const ev: NostrEvent = {
      id: i === 0 ? id : hex(), pubkey: author, created_at: createdAt, kind: i === 0 ? 11 : 1111, tags,
      content: `message ${i} of conversation ${c}: lorem ipsum dolor sit amet`, sig: "",
    };
    records.push({ t: "event", n: ++n, at: createdAt * 1000, ev, origin: "relay" });
    if (i % 25 === 24) records.push({ t: "read", n: ++n, at: createdAt * 1000, agent: to[0]!, seq: n - 1 - Math.floor(random() * 5) });
    if (i % 100 === 50) records.push({ t: "ack", n: ++n, at: createdAt * 1000, agent: to[0]!, eventId: ev.id });
  }
  return { id, records, createdAt: start, updatedAt: start + (PER_CONVERSATION - 1) * 2 };
}

/** The aggregate as the writer reads it (title, project, times, last position). */
function aggregate(log: ReturnType<typeof conversationLog>, lastN: number): Conversation {
  const conv = emptyConversation(log.id, "31933:bench:bench");
  conv.title = `bench conversation ${log.id.slice(0, 8)}`;
  conv.rootKind = 11;
  conv.createdAt = log.createdAt;
  conv.updatedAt = log.updatedAt;
  conv.lastN = lastN;
  return conv;
}

function timeMedian(runs: number, fn: (i: number) => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn(i);
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function benchIndexQueries(opts: { messages: number } = { messages: 1_000_000 }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-index-bench-"));
  const path = join(dir, "index.sqlite");
  const index = new SqliteIndex({ path });
  const agents = Array.from({ length: AGENTS }, hex);
  const random = rng(42);
  const conversations = Math.max(1, Math.round(opts.messages / PER_CONVERSATION));
  const label = opts.messages >= 1_000_000 ? `${opts.messages / 1_000_000}m` : `${opts.messages / 1000}k`;
  try {
    let buildMs = 0;
    for (let c = 0; c < conversations; c++) {
      const log = conversationLog(c, conversations, agents, random);
      const start = performance.now();
      for (let from = 0; from < log.records.length; from += 1000) {
        const batch = log.records.slice(from, from + 1000);
        index.applyBatch([indexItem(aggregate(log, batch[batch.length - 1]!.n), batch, pTagRecipients)]);
      }
      buildMs += performance.now() - start;
    }
    const total = conversations * PER_CONVERSATION;

    const unreadMs = timeMedian(2000, (i) => index.unreadCount(agents[i % AGENTS]!, NOW_MS));
    const inboxMs = timeMedian(200, (i) => index.inbox(agents[i % AGENTS]!, { now: NOW_MS, limit: 50 }));
    const statsMs = timeMedian(15, () => index.stats({ now: NOW_MS }));
    const unread = index.unreadCount(agents[0]!, NOW_MS);

    // Beside them, on a second connection: the floor (a primary-key lookup) and what counting
    // unread rows through the partial index alone would cost, without the maintained counters.
    const reader = new Database(path, { readonly: true });
    const lookup = reader.prepare(`SELECT max_created_at FROM relay_marks WHERE relay = ?`);
    const floorMs = timeMedian(2000, () => lookup.get("ws://127.0.0.1"));
    const scan = reader.prepare(`SELECT COUNT(*) FROM recipients WHERE recipient = ? AND unread = 1`);
    const scanMs = timeMedian(50, (i) => scan.get(agents[i % AGENTS]!));
    reader.close();
    const limitRps = measureSqliteInsertLimit();

    return [
      {
        name: `index_build_${label}_msgps`, value: Math.round(total / (buildMs / 1000)), unit: "messages/s",
        limit: Math.round(limitRps),
        note: `${total} messages in ${conversations} conversations through SqliteIndex.apply (1,000 records per transaction; each message also writes ~1.1 recipient rows); limit = sqlite_insert_limit_rps, raw rows/s`,
      },
      {
        name: `unread_${label}_ms`, value: round3(unreadMs), unit: "ms", goal: goalText(`unread_${label}_ms`), limit: round3(floorMs),
        note: `median of 2000; ${unread} unread for the first agent; limit = a primary-key lookup; counting through the partial index instead: ${round3(scanMs)} ms`,
      },
      {
        name: `inbox_${label}_ms`, value: round3(inboxMs), unit: "ms", goal: goalText(`inbox_${label}_ms`),
        note: "median of 200; first page of 50 with titles plus per-conversation counts",
      },
      {
        name: `stats_${label}_ms`, value: round3(statsMs), unit: "ms", goal: goalText(`stats_${label}_ms`),
        note: "median of 15; phases, statuses, volume windows, top authors, unread by agent/role, response times",
      },
    ];
  } finally {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
