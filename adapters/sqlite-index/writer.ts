// The index's only writer: applyBatch (the records of many conversations, one transaction), held
// (the same, committed later: held-batch.ts), drop (one conversation, aggregates subtracted) and
// resetAll (everything, before a full rebuild).

import type Database from "better-sqlite3";
import type { LogRecord } from "../../src/records.js";
import type { IndexItem, LogEnd } from "../../src/ports.js";
import { AggregateDeltas } from "./aggregate-deltas.js";
import { HeldBatch } from "./held-batch.js";
import { LogEnds } from "./log-ends.js";
import { replayResponseTimes, type ReplayRow } from "./response-replay.js";
import { MessageWriter } from "./message-writer.js";
import { MessageWords, type NewMessage } from "./message-words.js";
import { OutboxRows } from "./outbox-rows.js";
import { PendingRuns } from "./pending-runs.js";
import { StateWriter } from "./state-writer.js";
import { UnreadMarks } from "./unread-marks.js";

// Row fields come from the item's row (the fold of the log up to the item's last record), so
// applying a batch or re-applying an old one leaves the same row. last_message_at is the arrival time of the
// message at the highest log position.
// Parameters by position (id twice): it runs for every conversation of every batch.
const UPSERT_CONVERSATION = `
  INSERT INTO conversations
    (id, project, title, title_folded, phase, status, archived, root_kind, created_at, updated_at,
     message_count, last_n, last_message_at, exec_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
     (SELECT received_at FROM messages WHERE conversation_id = ? ORDER BY n DESC LIMIT 1), ?)
  ON CONFLICT (id) DO UPDATE SET
    project = excluded.project, title = excluded.title, title_folded = excluded.title_folded,
    phase = excluded.phase,
    status = excluded.status, archived = excluded.archived, root_kind = excluded.root_kind,
    created_at = excluded.created_at, updated_at = excluded.updated_at,
    message_count = excluded.message_count, last_n = MAX(conversations.last_n, excluded.last_n),
    last_message_at = excluded.last_message_at, exec_ms = excluded.exec_ms`;

// drop: take the conversation's share out of the global aggregates before deleting its rows.
const SUBTRACT_VOLUME = `
  INSERT INTO volume_hourly (hour, messages)
    SELECT created_at / 3600, -COUNT(*) FROM messages WHERE conversation_id = ? GROUP BY created_at / 3600
  ON CONFLICT (hour) DO UPDATE SET messages = messages + excluded.messages`;
const SUBTRACT_AUTHOR_COUNTS = `
  INSERT INTO author_counts (author, messages)
    SELECT author, -COUNT(*) FROM messages WHERE conversation_id = ? GROUP BY author
  ON CONFLICT (author) DO UPDATE SET messages = messages + excluded.messages`;
const SUBTRACT_UNREAD_TOTALS = `
  INSERT INTO unread_totals (agent, unread)
    SELECT agent, -SUM(unread) FROM unread_counts WHERE conversation_id = ? GROUP BY agent
  ON CONFLICT (agent) DO UPDATE SET unread = unread + excluded.unread`;
// Unread counts by rank are not kept per conversation: count the conversation's unread rows
// (its own primary-key range) before they are deleted.
const SUBTRACT_UNREAD_BY_RANK = `
  INSERT INTO unread_by_rank (agent, priority_rank, unread)
    SELECT recipient, priority_rank, -COUNT(*) FROM recipients WHERE conversation_id = ? AND unread = 1
    GROUP BY recipient, priority_rank
  ON CONFLICT (agent, priority_rank) DO UPDATE SET unread = unread + excluded.unread`;
// The response histogram has no per-conversation rows: replay the conversation to find its share.
const SELECT_REPLAY_ROWS = `
  SELECT m.n, m.author, m.created_at, r.recipient FROM messages m
  LEFT JOIN recipients r ON r.conversation_id = m.conversation_id AND r.n = m.n
  WHERE m.conversation_id = ? ORDER BY m.n`;
const DELETE_EMPTY_AGGREGATES = [
  `DELETE FROM unread_totals WHERE unread <= 0`,
  `DELETE FROM unread_by_rank WHERE unread <= 0`,
  `DELETE FROM volume_hourly WHERE messages <= 0`,
  `DELETE FROM author_counts WHERE messages <= 0`,
  `DELETE FROM response_histogram WHERE responses <= 0`,
] as const;

/** Tables holding rows of one conversation (processed ids and relay marks are not per conversation). */
const CONVERSATION_TABLES = [
  "messages", "recipients", "participants", "views", "acks", "phase_transitions", "turns",
  "completions", "status_changes", "unread_counts", "awaiting_reply", "outbox", "pending_runs", "log_ends",
] as const;
const DELETE_CONVERSATION_ROWS = [
  ...CONVERSATION_TABLES.map((t) => `DELETE FROM ${t} WHERE conversation_id = ?`),
  `DELETE FROM conversations WHERE id = ?`,
];
const ALL_TABLES = [
  ...CONVERSATION_TABLES, "conversations", "unread_totals", "unread_by_rank", "volume_hourly", "author_counts", "response_histogram",
  "relay_marks", "processed",
] as const;
const DELETE_ALL_ROWS = ALL_TABLES.map((t) => `DELETE FROM ${t}`);

type ConversationValues = [
  id: string, project: string, title: string, titleFolded: string, phase: string, status: string, archived: 0 | 1,
  rootKind: number | null, createdAt: number, updatedAt: number, messageCount: number, lastN: number,
  lastMessageOf: string, execMs: number,
];

export class IndexWriter {
  private readonly deltas;
  private readonly unread;
  private readonly messages;
  private readonly words;
  private readonly state;
  readonly outbox;
  readonly pendingRuns;
  readonly logEnds;
  private readonly upsertConversation;
  private readonly subtractAggregates;
  private readonly selectReplayRows;
  private readonly deleteEmptyAggregates;
  private readonly deleteConversationRows;
  private readonly deleteAllRows;
  readonly applyBatch: (items: readonly IndexItem[]) => void;
  /** A batch applied in a transaction left open until its records are durable (held-batch.ts). */
  readonly held: HeldBatch;
  readonly drop: (conversationId: string) => void;
  readonly resetAll: () => void;
  readonly setLogEnds: (ends: ReadonlyMap<string, LogEnd>) => void;

  constructor(db: Database.Database) {
    this.deltas = new AggregateDeltas(db);
    this.unread = new UnreadMarks(db, this.deltas);
    this.messages = new MessageWriter(db, this.unread, this.deltas);
    this.words = new MessageWords(db);
    this.state = new StateWriter(db);
    this.outbox = new OutboxRows(db);
    this.pendingRuns = new PendingRuns(db);
    this.logEnds = new LogEnds(db);
    this.upsertConversation = db.prepare<ConversationValues>(UPSERT_CONVERSATION);
    this.subtractAggregates = [SUBTRACT_VOLUME, SUBTRACT_AUTHOR_COUNTS, SUBTRACT_UNREAD_TOTALS, SUBTRACT_UNREAD_BY_RANK]
      .map((sql) => db.prepare<[string]>(sql));
    this.selectReplayRows = db.prepare<[string], ReplayRow>(SELECT_REPLAY_ROWS);
    this.deleteEmptyAggregates = DELETE_EMPTY_AGGREGATES.map((sql) => db.prepare(sql));
    this.deleteConversationRows = DELETE_CONVERSATION_ROWS.map((sql) => db.prepare<[string]>(sql));
    this.deleteAllRows = DELETE_ALL_ROWS.map((sql) => db.prepare(sql));
    // One commit for many conversations: a commit costs far more than the rows it writes. The
    // counting tables are written once for the whole batch, summed over its conversations.
    this.applyBatch = db.transaction((items: readonly IndexItem[]) => this.applyItems(items));
    this.held = new HeldBatch(db, (items) => this.applyItems(items));
    this.drop = db.transaction((id: string) => this.dropOne(id));
    this.setLogEnds = db.transaction((ends: ReadonlyMap<string, LogEnd>) => {
      for (const [id, end] of ends) this.logEnds.set(id, end);
    });
    this.resetAll = db.transaction(() => {
      this.words.reset();
      for (const s of this.deleteAllRows) s.run();
    });
  }

  // Inside a transaction.
  private applyItems(items: readonly IndexItem[]): void {
    this.deltas.clear();
    for (const item of items) {
      if (item.replace) {
        // dropOne sums its own deltas: the batch's so far are written first.
        this.deltas.flush();
        this.dropOne(item.conversationId);
        this.deltas.clear();
      }
      this.applyAll(item);
    }
    this.deltas.flush();
  }

  // Inside a transaction whose deltas are cleared before and flushed after.
  private applyAll(item: IndexItem): void {
    const { conversationId: id, records, row } = item;
    let events = 0;
    const added: NewMessage[] = [];
    for (const rec of records) {
      const message = this.applyOne(item, rec, rec.t === "event" ? item.recipients[events++] : undefined);
      if (message) added.push(message);
    }
    this.upsertConversation.run(
      id, row.project, row.title, row.title.toLowerCase(), row.phase, row.status, row.archived ? 1 : 0,
      row.rootKind ?? null, row.createdAt, row.updatedAt, row.messageCount, row.lastN, id, row.execMs,
    );
    // The words' key holds the conversation's rowid, which a new conversation has only now.
    this.words.add(id, added);
    const last = records.at(-1);
    if (last) this.logEnds.applied(id, last.n, item.logBytes);
  }

  /** `recipients`: an event record's, from the item. A new message's row, for its words. */
  private applyOne(item: IndexItem, rec: LogRecord, recipients: readonly string[] | undefined): NewMessage | void {
    const id = item.conversationId;
    switch (rec.t) {
      case "event":
        this.outbox.event(id, rec);
        return this.messages.write(id, rec, recipients ?? []);
      case "phase":
      case "phase_refused":
        return this.state.phase(id, rec);
      case "turn_start":
        return this.state.turnStart(id, rec, item.turnNumbers[rec.turnId]);
      case "completion":
        return this.state.completion(id, rec);
      case "turn_end":
        return this.state.turnEnd(id, rec);
      case "status":
      case "archive":
        return this.state.status(id, rec);
      case "cursor":
        return this.state.cursor(id, rec, item.sessions[rec.agent]);
      case "read":
        return this.unread.markRead(id, rec.agent, rec.seq);
      case "ack":
        return this.unread.ack(id, rec.agent, rec.eventId, rec.n, rec.at);
      case "sent":
        return this.outbox.sent(rec);
      case "run_pending":
        return this.pendingRuns.opened(id, rec);
      case "agent_run":
        return this.pendingRuns.done(rec);
      case "exec":
      case "read_file":
        // Execution time reaches the index through the row (exec_ms); read files are the log's
        // and the aggregate's business only.
        return;
    }
  }

  private dropOne(conversationId: string): void {
    this.deltas.clear();
    for (const [agent, seconds] of replayResponseTimes(this.selectReplayRows.iterate(conversationId))) {
      this.deltas.response(agent, seconds, -1);
    }
    this.deltas.flush();
    for (const s of this.subtractAggregates) s.run(conversationId);
    for (const s of this.deleteEmptyAggregates) s.run();
    this.words.drop(conversationId);
    for (const s of this.deleteConversationRows) s.run(conversationId);
  }
}
