// Fixtures for the SQLite index tests: conversation logs built record by record (folded into
// a real Conversation aggregate by the reducer), temp index files, and table dumps.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { SqliteIndex, type SqliteIndexOptions } from "../../adapters/sqlite-index/sqlite-index.js";
import { IndexFeeder, inlineApplier } from "../../daemon/engine/store/index-feeder.js";
import { applyRecord, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { indexItem } from "../../src/index-item.js";
import { pTagRecipients, type RecipientsOf } from "../../src/messaging/recipients.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject, type TestKey } from "../helpers/events.js";

const tempDirs: string[] = [];

export function tempIndexPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tenexd-index-"));
  tempDirs.push(dir);
  return path.join(dir, "index.sqlite");
}

/** Deletes every directory tempIndexPath made (call once the indexes in them are closed). */
export function removeTempIndexes(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

const openIndexes: SqliteIndex[] = [];

/** A SqliteIndex fed the way the daemon feeds it. */
export type TestIndex = SqliteIndex & {
  /**
   * Applies durable records of `conv` (which holds them and nothing after) as the daemon does:
   * their index item (src/index-item.ts) through the index feeder, applied at once.
   */
  apply(conv: Conversation, records: readonly LogRecord[], logBytes?: number): void;
};

/**
 * A SqliteIndex on a fresh temp file unless `path` is given; closeTestIndexes closes it.
 * `recipientsOf`: who a message is for (default: its `p` tags).
 */
export function newTestIndex(opts: Partial<SqliteIndexOptions> & { recipientsOf?: RecipientsOf } = {}): TestIndex {
  const { recipientsOf = pTagRecipients, ...rest } = opts;
  const index = new SqliteIndex({ path: tempIndexPath(), ...rest });
  openIndexes.push(index);
  const feeder = new IndexFeeder(inlineApplier(index), (err) => { throw err; });
  return Object.assign(index, {
    apply(conv: Conversation, records: readonly LogRecord[], logBytes?: number) {
      feeder.add(indexItem(conv, records, recipientsOf), logBytes);
      feeder.flush();
    },
  });
}

/** Closes every index newTestIndex opened, then deletes the temp directories (for afterEach). */
export function closeTestIndexes(): void {
  for (const index of openIndexes.splice(0)) index.close();
  removeTempIndexes();
}

/** A record before the log gives it its position (and, unless given, its time). */
export type Draft = LogRecord extends infer R ? (R extends LogRecord ? Omit<R, "n" | "at"> & { at?: number } : never) : never;

/** One conversation's log as the daemon would write it, with the aggregate folded alongside. */
export class LogFixture {
  readonly records: LogRecord[] = [];
  readonly conv: Conversation;
  private at = 1_700_000_000_000;

  constructor(readonly id: string) {
    this.conv = emptyConversation(id);
  }

  add(rec: Draft): LogRecord {
    this.at += 1000;
    const full = { at: this.at, ...rec, n: this.records.length + 1 } as LogRecord;
    this.records.push(full);
    applyRecord(this.conv, full);
    return full;
  }

  event(ev: NostrEvent): LogRecord {
    return this.add({ t: "event", ev, origin: "relay" });
  }

  /** The aggregate as it was after the first `n` records (what the daemon held then). */
  convAt(n: number): Conversation {
    const conv = emptyConversation(this.id);
    for (const r of this.records.slice(0, n)) applyRecord(conv, r);
    return conv;
  }
}

/**
 * Every row of every table, order-independent, for comparing two index files. An FTS5 table is
 * dumped by what it finds, not by its storage (its segments depend on how it was written):
 * each word it holds with the rowids of the rows holding it.
 */
export function dumpIndex(file: string): Record<string, string[]> {
  const db = new Database(file, { readonly: true });
  try {
    const fts = db.prepare<[], string>(`SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'`).pluck().all();
    const isFtsStorage = (t: string) => fts.some((f) => t === f || t.startsWith(`${f}_`));
    const tables = db.prepare<[], string>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    ).pluck().all().filter((t) => !isFtsStorage(t));
    return {
      ...Object.fromEntries(tables.map((t) => [
        t, db.prepare(`SELECT * FROM "${t}"`).all().map((r) => JSON.stringify(r)).sort(),
      ])),
      ...Object.fromEntries(fts.map((f) => [f, ftsWords(db, f)])),
    };
  } finally {
    db.close();
  }
}

/**
 * "word: row row …" for every word an FTS5 table holds. A row is named by the conversation id
 * and log position its key stands for (adapters/sqlite-index/message-words.ts): the rowids of
 * conversations depend on the order they were first written, which two builds need not share.
 */
export function ftsWords(db: Database.Database, table: string): string[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp."${table}_vocab" USING fts5vocab(main, "${table}", row)`);
  const words = db.prepare<[], string>(`SELECT term FROM temp."${table}_vocab" ORDER BY term`).pluck().all();
  const rows = db.prepare<[string], { id: string | null; n: bigint }>(
    `SELECT c.id, w.rowid & 4294967295 AS n FROM "${table}" w LEFT JOIN conversations c ON c.rowid = w.rowid >> 32 WHERE "${table}" MATCH ?`,
  ).safeIntegers();
  return words.map((w) => `${w}: ${rows.all(`"${w.replaceAll('"', '""')}"`).map((r) => `${r.id}#${r.n}`).sort().join(" ")}`);
}

/** Two conversations touching every record type the index reads. t0 = created_at of the first root. */
export function scenario(t0 = 1_700_000_000) {
  const p = testProject({ agents: ["planner", "coder"] });
  const user = p.owner;
  const { planner, coder } = p.agents as { planner: TestKey; coder: TestKey };

  const rootA = p.root(user, "Build the login page", [planner.pubkey], [], t0);
  const a = new LogFixture(rootA.id);
  a.event(rootA);
  a.add({ t: "turn_start", turnId: "t1", phase: "chat", agents: [planner.pubkey], reason: "asked" });
  const a1 = p.reply(planner, rootA, "plan ready", [user.pubkey, coder.pubkey], [["priority", "high"]], rootA, t0 + 60);
  a.event(a1);
  a.add({ t: "phase", from: "chat", to: "plan", by: p.orchestrator.pubkey, message: "go plan", reason: "plan first", turn: 1 });
  a.add({ t: "phase_refused", from: "plan", to: "chat", by: coder.pubkey, message: "back", reason: "plan→chat is not allowed" });
  a.add({ t: "cursor", agent: coder.pubkey, seq: 3, session: "s1" });
  const a2 = p.reply(coder, rootA, "on it", [planner.pubkey], [["expiration", String(t0 + 100)]], a1, t0 + 120);
  a.event(a2);
  a.add({ t: "completion", turnId: "t1", eventId: a1.id, agent: planner.pubkey, message: "done" });
  a.add({ t: "turn_end", turnId: "t1", status: "completed" });
  a.add({ t: "read", agent: user.pubkey, seq: 3 });
  a.add({ t: "ack", agent: planner.pubkey, eventId: a2.id });
  const a3 = p.reply(planner, rootA, "stop everything", [coder.pubkey], [["priority", "critical"]], a2, t0 + 120);
  a.event(a3);
  a.add({ t: "cursor", agent: coder.pubkey, seq: 12, session: "s2" });
  a.add({ t: "exec", op: "start" });
  a.add({ t: "exec", op: "stop" });

  const rootB = p.root(user, "Fix the flaky test", [coder.pubkey], [], t0 + 30);
  const b = new LogFixture(rootB.id);
  b.event(rootB);
  const b1 = p.reply(coder, rootB, "fixed", [user.pubkey], [], rootB, t0 + 90);
  b.event(b1);
  b.add({ t: "status", status: "closed", by: user.pubkey, reason: "done" });
  b.add({ t: "archive", archived: true });

  return { p, user, planner, coder, logs: [a, b], events: { rootA, a1, a2, a3, rootB, b1 } };
}

/**
 * Applies the logs the way the daemon does: small batches as records become durable,
 * conversations interleaved, each batch with the aggregate as it stood after it.
 */
export function applyIncrementally(index: TestIndex, logs: readonly LogFixture[], sizes = [1, 3, 2]): void {
  const next = logs.map(() => 0);
  for (let step = 0; next.some((n, i) => n < logs[i]!.records.length); step++) {
    logs.forEach((log, i) => {
      const from = next[i]!;
      const to = Math.min(log.records.length, from + sizes[(step + i) % sizes.length]!);
      if (to > from) index.apply(log.convAt(to), log.records.slice(from, to));
      next[i] = to;
    });
  }
}
