// Indexes one event record: its message row, its recipients (unread), and what the stats
// count (hourly volume, per-author counts, response times). Everything after the message insert
// happens only if the insert did, which is what makes re-applying a record a no-op.

import type Database from "better-sqlite3";
import type { Conversation } from "../../src/conversation-state.js";
import type { EventRecord } from "../../src/records.js";
import type { AggregateDeltas } from "./aggregate-deltas.js";
import { messageRow, recipientsFor, type MessageRow, type RecipientsOf } from "./message-row.js";
import { responseSeconds } from "./response-replay.js";
import type { UnreadMarks } from "./unread-marks.js";

const INSERT_MESSAGE = `
  INSERT OR IGNORE INTO messages
    (conversation_id, n, event_id, received_at, author, kind, type, priority, priority_rank,
     created_at, expiration, parent_id, preview, size)
  VALUES (@conversation_id, @n, @event_id, @received_at, @author, @kind, @type, @priority, @priority_rank,
     @created_at, @expiration, @parent_id, @preview, @size)`;
const TAKE_AWAITING = `DELETE FROM awaiting_reply WHERE conversation_id = ? AND agent = ? RETURNING created_at`;
const INSERT_AWAITING = `
  INSERT OR IGNORE INTO awaiting_reply (conversation_id, agent, n, created_at) VALUES (?, ?, ?, ?)`;

export class MessageWriter {
  private readonly insertMessage;
  private readonly takeAwaiting;
  private readonly insertAwaiting;

  constructor(
    db: Database.Database,
    private readonly unread: UnreadMarks,
    private readonly deltas: AggregateDeltas,
    private readonly recipientsOf: RecipientsOf,
  ) {
    this.insertMessage = db.prepare<MessageRow>(INSERT_MESSAGE);
    this.takeAwaiting = db.prepare<[string, string], { created_at: number }>(TAKE_AWAITING);
    this.insertAwaiting = db.prepare<[string, string, number, number]>(INSERT_AWAITING);
  }

  write(conv: Conversation, rec: EventRecord): void {
    const row = messageRow(conv.id, rec);
    if (this.insertMessage.run(row).changes === 0) return;
    this.deltas.message(row.created_at, row.author);
    this.deltas.participant(conv.id, row.author);
    this.resolveAwaiting(conv.id, row.author, row.created_at);
    for (const recipient of recipientsFor(rec.ev, conv, this.recipientsOf)) {
      this.unread.addRecipient({
        conversation_id: conv.id, n: row.n, recipient, event_id: row.event_id,
        priority_rank: row.priority_rank, created_at: row.created_at, expiration: row.expiration,
      });
      this.deltas.participant(conv.id, recipient);
      this.insertAwaiting.run(conv.id, recipient, row.n, row.created_at);
    }
  }

  // The author speaks: every message to it still waiting in this conversation is answered now
  // (response-replay.ts computes the same from the messages, for drop).
  private resolveAwaiting(conversationId: string, author: string, createdAt: number): void {
    for (const w of this.takeAwaiting.all(conversationId, author)) {
      this.deltas.response(author, responseSeconds(w.created_at, createdAt), 1);
    }
  }
}
