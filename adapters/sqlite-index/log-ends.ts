// Where each conversation's log ended when the index last applied it (schema v4). Written with
// the records, in their transaction: the pair (n, bytes) says the log's first `bytes` bytes hold
// exactly the records up to `n`, all of them indexed. Recovery after a crash stats each log and
// reads only those whose size differs (daemon/index-recovery.ts).

import type Database from "better-sqlite3";
import type { IndexedLog, LogEnd } from "../../src/ports.js";

// Only forward: re-applying older records with their (smaller) size leaves the newer end.
const UPSERT_LOG_END = `
  INSERT INTO log_ends (conversation_id, n, bytes) VALUES (?, ?, ?)
  ON CONFLICT (conversation_id) DO UPDATE SET n = excluded.n, bytes = excluded.bytes
  WHERE excluded.n >= log_ends.n`;
const DELETE_LOG_END = `DELETE FROM log_ends WHERE conversation_id = ?`;
// One pass for the whole start-up check (20,000 conversations: one row each, no objects).
const SELECT_INDEXED_LOGS = `
  SELECT c.id, c.last_n, e.n, e.bytes FROM conversations c
  LEFT JOIN log_ends e ON e.conversation_id = c.id`;

export class LogEnds {
  private readonly upsert;
  private readonly remove;
  private readonly select;

  constructor(db: Database.Database) {
    this.upsert = db.prepare<[string, number, number]>(UPSERT_LOG_END);
    this.remove = db.prepare<[string]>(DELETE_LOG_END);
    this.select = db.prepare<[], [string, number, number | null, number | null]>(SELECT_INDEXED_LOGS).raw();
  }

  /** Records up to `n` were applied and end at byte `bytes`; undefined bytes: where is unknown. */
  applied(conversationId: string, n: number, bytes: number | undefined): void {
    // Without a size the old end no longer covers what the index holds: forget it, so the
    // next recovery checks this log by its last position instead of trusting its size.
    if (bytes === undefined) this.remove.run(conversationId);
    else this.upsert.run(conversationId, n, bytes);
  }

  set(conversationId: string, end: LogEnd): void {
    this.upsert.run(conversationId, end.n, end.bytes);
  }

  /** Every indexed conversation with its position and, if recorded, where its log ended. */
  indexed(): Map<string, IndexedLog> {
    const out = new Map<string, IndexedLog>();
    for (const [id, lastN, n, bytes] of this.select.all() as unknown as [string, number, number | null, number | null][]) {
      out.set(id, n === null || bytes === null ? { n: lastN } : { n: lastN, end: { n, bytes } });
    }
    return out;
  }
}
