// Agent runs due and not yet done: a `run_pending` record opens one, the `agent_run` record of
// the same agent and trigger closes it. Idempotent in log order, like every index write.

import type Database from "better-sqlite3";
import type { AgentRunRecord, RunPendingRecord } from "../../src/records.js";

const INSERT_PENDING = `INSERT OR IGNORE INTO pending_runs (conversation_id, agent, trigger_id, n) VALUES (?, ?, ?, ?)`;
const DELETE_PENDING = `DELETE FROM pending_runs WHERE agent = ? AND trigger_id = ?`;
const SELECT_PENDING = `SELECT conversation_id, agent, trigger_id FROM pending_runs ORDER BY conversation_id, n`;

export interface PendingRun {
  conversationId: string;
  agent: string;
  triggerId: string;
}

export class PendingRuns {
  private readonly insert;
  private readonly remove;
  private readonly select;

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string, string, string, number]>(INSERT_PENDING);
    this.remove = db.prepare<[string, string]>(DELETE_PENDING);
    this.select = db.prepare<[], { conversation_id: string; agent: string; trigger_id: string }>(SELECT_PENDING);
  }

  opened(conversationId: string, rec: RunPendingRecord): void {
    this.insert.run(conversationId, rec.agent, rec.trigger, rec.n);
  }

  done(rec: AgentRunRecord): void {
    this.remove.run(rec.agent, rec.trigger);
  }

  all(): PendingRun[] {
    return this.select.all().map((r) => ({ conversationId: r.conversation_id, agent: r.agent, triggerId: r.trigger_id }));
  }
}
