// Indexes one event record: its message row, its recipients (unread), and what the stats
// count (hourly volume, per-author counts, response times). Everything after the message insert
// happens only if the insert did, which is what makes re-applying a record a no-op.

import type Database from "better-sqlite3";
import type { EventRecord } from "../../src/records.js";
import type { AggregateDeltas } from "./aggregate-deltas.js";
import { messageRow, type MessageRow } from "./message-row.js";
import { responseSeconds } from "./response-replay.js";
import type { UnreadMarks } from "./unread-marks.js";

// Parameters by position throughout this hot path: binding by name costs a property lookup per
// parameter, a third of an insert's time.
const INSERT_MESSAGE = `
  INSERT OR IGNORE INTO messages
    (conversation_id, n, event_id, received_at, author, kind, type, priority, priority_rank,
     created_at, expiration, parent_id, preview, size)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
// Read, then delete only when there is something: a DELETE … RETURNING costs several times
// more even when it finds nothing, and most messages find nothing.
const SELECT_AWAITING = `SELECT created_at FROM awaiting_reply WHERE conversation_id = ? AND agent = ?`;
const DELETE_AWAITING = `DELETE FROM awaiting_reply WHERE conversation_id = ? AND agent = ?`;
const INSERT_AWAITING = `
  INSERT OR IGNORE INTO awaiting_reply (conversation_id, agent, n, created_at) VALUES (?, ?, ?, ?)`;

type MessageValues = [
  conversationId: string, n: number, eventId: string, receivedAt: number, author: string, kind: number,
  type: string | null, priority: string | null, priorityRank: number, createdAt: number,
  expiration: number | null, parentId: string | null, preview: string, size: number,
];

export class MessageWriter {
  private readonly insertMessage;
  private readonly selectAwaiting;
  private readonly deleteAwaiting;
  private readonly insertAwaiting;

  constructor(
    db: Database.Database,
    private readonly unread: UnreadMarks,
    private readonly deltas: AggregateDeltas,
  ) {
    this.insertMessage = db.prepare<MessageValues>(INSERT_MESSAGE);
    this.selectAwaiting = db.prepare<[string, string], number>(SELECT_AWAITING).pluck();
    this.deleteAwaiting = db.prepare<[string, string]>(DELETE_AWAITING);
    this.insertAwaiting = db.prepare<[string, string, number, number]>(INSERT_AWAITING);
  }

  /** `recipients`: who the message is for (IndexItem.recipients). The row, if it is new. */
  write(conversationId: string, rec: EventRecord, recipients: readonly string[]): MessageRow | undefined {
    const row = messageRow(conversationId, rec);
    const inserted = this.insertMessage.run(
      row.conversation_id, row.n, row.event_id, row.received_at, row.author, row.kind, row.type, row.priority,
      row.priority_rank, row.created_at, row.expiration, row.parent_id, row.preview, row.size,
    );
    if (inserted.changes === 0) return undefined;
    this.deltas.message(row.created_at, row.author);
    this.deltas.participant(conversationId, row.author);
    this.resolveAwaiting(conversationId, row.author, row.created_at);
    for (const recipient of recipients) {
      this.unread.addRecipient({
        conversation_id: conversationId, n: row.n, recipient, event_id: row.event_id,
        priority_rank: row.priority_rank, created_at: row.created_at, expiration: row.expiration,
      });
      this.deltas.participant(conversationId, recipient);
      this.insertAwaiting.run(conversationId, recipient, row.n, row.created_at);
    }
    return row;
  }

  // The author speaks: every message to it still waiting in this conversation is answered now
  // (response-replay.ts computes the same from the messages, for drop).
  private resolveAwaiting(conversationId: string, author: string, createdAt: number): void {
    const asked = this.selectAwaiting.all(conversationId, author);
    if (asked.length === 0) return;
    this.deleteAwaiting.run(conversationId, author);
    for (const askedAt of asked) this.deltas.response(author, responseSeconds(askedAt, createdAt), 1);
  }
}
