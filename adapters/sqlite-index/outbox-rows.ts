// Outbox rows: a locally published event enters unsent; its first `sent` record marks it sent.
// Both writes are idempotent, so re-applying records in log order leaves the same rows.

import type Database from "better-sqlite3";
import type { EventRecord, SentRecord } from "../../src/records.js";

const INSERT_OUTBOX = `INSERT OR IGNORE INTO outbox (event_id, conversation_id, n, sent_n) VALUES (?, ?, ?, NULL)`;
const MARK_SENT = `UPDATE outbox SET sent_n = ? WHERE event_id = ? AND sent_n IS NULL`;
const SELECT_UNSENT = `SELECT event_id, conversation_id FROM outbox WHERE sent_n IS NULL ORDER BY conversation_id, n`;
const SELECT_PUBLISHED = `SELECT 1 FROM outbox WHERE event_id = ?`;

export interface UnsentEvent {
  eventId: string;
  conversationId: string;
}

export class OutboxRows {
  private readonly insert;
  private readonly markSent;
  private readonly selectUnsent;
  private readonly selectPublished;

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string, string, number]>(INSERT_OUTBOX);
    this.markSent = db.prepare<[number, string]>(MARK_SENT);
    this.selectUnsent = db.prepare<[], { event_id: string; conversation_id: string }>(SELECT_UNSENT);
    this.selectPublished = db.prepare<[string], 1>(SELECT_PUBLISHED).pluck();
  }

  event(conversationId: string, rec: EventRecord): void {
    if (rec.origin === "local") this.insert.run(rec.ev.id, conversationId, rec.n);
  }

  sent(rec: SentRecord): void {
    this.markSent.run(rec.n, rec.eventId);
  }

  /** Whether the event was published here (a relay sending it back is an echo). */
  has(eventId: string): boolean {
    return this.selectPublished.get(eventId) !== undefined;
  }

  unsent(): UnsentEvent[] {
    return this.selectUnsent.all().map((r) => ({ eventId: r.event_id, conversationId: r.conversation_id }));
  }
}
