// Catch-up bookkeeping: per-relay high-water marks (newest created_at seen) and the ids of
// events handled that are not conversation messages. Messages count as processed by being in
// `messages`, so nothing is stored twice.

import type Database from "better-sqlite3";

const SELECT_HIGH_WATER = `SELECT max_created_at FROM relay_marks WHERE relay = ?`;
const SELECT_ALL_HIGH_WATER = `SELECT relay, max_created_at FROM relay_marks ORDER BY relay`;
const RAISE_HIGH_WATER = `
  INSERT INTO relay_marks (relay, max_created_at) VALUES (?, ?)
  ON CONFLICT (relay) DO UPDATE SET max_created_at = excluded.max_created_at
  WHERE excluded.max_created_at > relay_marks.max_created_at`;
// Positional, not named: binding by name costs more than one of these lookups, and every
// inbound event asks.
const SELECT_IS_PROCESSED = `
  SELECT EXISTS (SELECT 1 FROM messages WHERE event_id = ?)
      OR EXISTS (SELECT 1 FROM processed WHERE event_id = ?)`;
// The same for many ids at once (a relay's slice of events): one statement, one B-tree walk each.
const SELECT_PROCESSED_AMONG = `
  SELECT value FROM json_each(?)
   WHERE EXISTS (SELECT 1 FROM messages WHERE event_id = value)
      OR EXISTS (SELECT 1 FROM processed WHERE event_id = value)`;
const INSERT_PROCESSED = `INSERT OR IGNORE INTO processed (event_id, conversation_id) VALUES (?, ?)`;

export class RelayMarks {
  private readonly selectHighWater;
  private readonly selectAllHighWater;
  private readonly raiseHighWater;
  private readonly selectIsProcessed;
  private readonly selectProcessedAmong;
  private readonly insertProcessed;

  constructor(db: Database.Database) {
    this.selectHighWater = db.prepare<[string], number>(SELECT_HIGH_WATER).pluck();
    this.selectAllHighWater = db.prepare<[], { relay: string; max_created_at: number }>(SELECT_ALL_HIGH_WATER);
    this.raiseHighWater = db.prepare<[string, number]>(RAISE_HIGH_WATER);
    this.selectIsProcessed = db.prepare<[string, string], number>(SELECT_IS_PROCESSED).pluck();
    this.selectProcessedAmong = db.prepare<[string], string>(SELECT_PROCESSED_AMONG).pluck();
    this.insertProcessed = db.prepare<[string, string | null]>(INSERT_PROCESSED);
  }

  /** Newest created_at (unix s) seen from the relay, undefined before the first event. */
  getHighWater(relay: string): number | undefined {
    return this.selectHighWater.get(relay);
  }

  highWaterMarks(): Map<string, number> {
    return new Map(this.selectAllHighWater.all().map((r) => [r.relay, r.max_created_at]));
  }

  /** Moves the mark forward only; returns whether it moved. */
  setHighWater(relay: string, createdAt: number): boolean {
    return this.raiseHighWater.run(relay, createdAt).changes === 1;
  }

  isProcessed(eventId: string): boolean {
    return this.selectIsProcessed.get(eventId, eventId) === 1;
  }

  /** Those of `eventIds` that are processed (isProcessed), in one query. */
  processedAmong(eventIds: readonly string[]): Set<string> {
    return new Set(eventIds.length === 0 ? [] : this.selectProcessedAmong.all(JSON.stringify(eventIds)));
  }

  /** For events that are not messages of a conversation (those are known by being indexed). */
  markProcessed(eventId: string, conversationId?: string): void {
    this.insertProcessed.run(eventId, conversationId ?? null);
  }
}
