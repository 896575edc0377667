// Unread bookkeeping. A recipient row is unread while its n is above the agent's read mark in
// that conversation and the agent has not acked it; unread_counts keeps the number of such
// rows per (agent, conversation), so counting is a lookup, not a scan.

import type Database from "better-sqlite3";
import type { AggregateDeltas } from "./aggregate-deltas.js";

// Unread is decided in the same statement as the insert; RETURNING yields a row only when the
// insert happened (a re-applied record is ignored and counts nothing). Parameters by position
// (some repeat), as every message's recipient comes through here.
const INSERT_RECIPIENT = `
  INSERT OR IGNORE INTO recipients
    (conversation_id, n, recipient, priority_rank, created_at, expiration, unread)
  VALUES (?, ?, ?, ?, ?, ?,
    ? > COALESCE((SELECT read_n FROM views WHERE conversation_id = ? AND agent = ?), 0)
    AND NOT EXISTS (SELECT 1 FROM acks WHERE agent = ? AND event_id = ?))
  RETURNING unread`;
const SELECT_READ_N = `SELECT read_n FROM views WHERE conversation_id = ? AND agent = ?`;
const UPSERT_READ_MARK = `
  INSERT INTO views (conversation_id, agent, cursor_n, read_n, session) VALUES (?, ?, 0, ?, NULL)
  ON CONFLICT (conversation_id, agent) DO UPDATE SET read_n = excluded.read_n
  WHERE excluded.read_n > views.read_n`;
// Rows at or below the old mark were never unread (see INSERT_RECIPIENT), so only the range
// between the old mark and the new one can change: it costs what was newly read, however long
// the conversation is. Each row read returns its rank for the counts by priority.
const MARK_READ_BETWEEN = `
  UPDATE recipients SET unread = 0
  WHERE conversation_id = ? AND n > ? AND n <= ? AND recipient = ? AND unread = 1
  RETURNING priority_rank`;
const INSERT_ACK = `INSERT OR IGNORE INTO acks (agent, event_id, conversation_id, n, at) VALUES (?, ?, ?, ?, ?)`;
const SELECT_MESSAGE_POSITION = `SELECT conversation_id, n FROM messages WHERE event_id = ?`;
const MARK_ACKED = `
  UPDATE recipients SET unread = 0
  WHERE conversation_id = ? AND n = ? AND recipient = ? AND unread = 1
  RETURNING priority_rank`;

export interface RecipientInput {
  conversation_id: string;
  n: number;
  recipient: string;
  /** Not stored (the message row has it): checks for an ack that came first. */
  event_id: string;
  priority_rank: number;
  created_at: number;
  expiration: number | null;
}

type RecipientValues = [
  conversationId: string, n: number, recipient: string, priorityRank: number, createdAt: number,
  expiration: number | null,
  // The unread test: the read mark of (conversation, recipient), an ack by (recipient, event).
  unreadIfAbove: number, viewConversation: string, viewAgent: string, ackAgent: string, ackEventId: string,
];

export class UnreadMarks {
  private readonly insertRecipient;
  private readonly selectReadN;
  private readonly upsertReadMark;
  private readonly markReadBetween;
  private readonly insertAck;
  private readonly selectMessagePosition;
  private readonly markAcked;

  constructor(db: Database.Database, private readonly deltas: AggregateDeltas) {
    this.insertRecipient = db.prepare<RecipientValues, 0 | 1>(INSERT_RECIPIENT).pluck();
    this.selectReadN = db.prepare<[string, string], number>(SELECT_READ_N).pluck();
    this.upsertReadMark = db.prepare<[string, string, number]>(UPSERT_READ_MARK);
    this.markReadBetween = db.prepare<[string, number, number, string], number>(MARK_READ_BETWEEN).pluck();
    this.insertAck = db.prepare<[string, string, string, number, number]>(INSERT_ACK);
    this.selectMessagePosition = db.prepare<[string], { conversation_id: string; n: number }>(SELECT_MESSAGE_POSITION);
    this.markAcked = db.prepare<[string, number, string], number>(MARK_ACKED).pluck();
  }

  /** Records that a message reached a recipient; unread unless already read past or acked. */
  addRecipient(r: RecipientInput): void {
    const unread = this.insertRecipient.get(
      r.conversation_id, r.n, r.recipient, r.priority_rank, r.created_at, r.expiration,
      r.n, r.conversation_id, r.recipient, r.recipient, r.event_id,
    );
    if (unread === 1) this.deltas.unread(r.recipient, r.conversation_id, r.priority_rank, 1);
  }

  /** The agent has read everything up to `seq` in the conversation (the mark only moves forward). */
  markRead(conversationId: string, agent: string, seq: number): void {
    const previous = this.selectReadN.get(conversationId, agent) ?? 0;
    if (seq <= previous) return;
    this.upsertReadMark.run(conversationId, agent, seq);
    for (const rank of this.markReadBetween.all(conversationId, previous, seq, agent)) {
      this.deltas.unread(agent, conversationId, rank, -1);
    }
  }

  /** The agent acked one message (recorded at position `n` of `conversationId`'s log). */
  ack(conversationId: string, agent: string, eventId: string, n: number, at: number): void {
    if (this.insertAck.run(agent, eventId, conversationId, n, at).changes === 0) return;
    const pos = this.selectMessagePosition.get(eventId);
    const rank = pos && this.markAcked.get(pos.conversation_id, pos.n, agent);
    if (pos && rank !== undefined) this.deltas.unread(agent, pos.conversation_id, rank, -1);
  }
}
