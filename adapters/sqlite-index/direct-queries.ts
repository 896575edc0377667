// Candidates for the direct (1-on-1) conversation of two agents: kind 11 roots one of them
// wrote to the other alone, newest first. The caller confirms a candidate on its root event
// (a discussion scoped to a role of one agent also has a single recipient).

import type Database from "better-sqlite3";
import type { DirectCandidate } from "../../src/read-model.js";

// Walks conversations (far fewer rows than messages) and looks each root up by its unique id.
const SELECT_DIRECT_CANDIDATES = `
  SELECT c.id, c.status FROM conversations c
  JOIN messages m ON m.event_id = c.id
  WHERE m.kind = 11 AND m.author IN (@a, @b)
    AND EXISTS (SELECT 1 FROM recipients r WHERE r.conversation_id = c.id AND r.n = m.n
                AND r.recipient = CASE m.author WHEN @a THEN @b ELSE @a END)
    AND (SELECT COUNT(*) FROM recipients r2 WHERE r2.conversation_id = c.id AND r2.n = m.n) = 1
  ORDER BY c.created_at DESC, c.rowid DESC
  LIMIT 10`;

export class DirectQueries {
  private readonly candidates;

  constructor(db: Database.Database) {
    this.candidates = db.prepare<{ a: string; b: string }, DirectCandidate>(SELECT_DIRECT_CANDIDATES);
  }

  candidatesFor(a: string, b: string): DirectCandidate[] {
    return this.candidates.all({ a, b });
  }
}
