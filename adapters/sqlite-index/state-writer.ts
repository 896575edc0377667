// Indexes the state-change records of a log: phase changes (accepted and refused), turns and
// completions, status and archive changes, agent cursors. All keyed by log position, so a
// re-applied record changes nothing.

import type Database from "better-sqlite3";
import type {
  ArchiveRecord, CompletionRecord, CursorRecord, PhaseRecord, PhaseRefusedRecord, StatusRecord,
  TurnEndRecord, TurnStartRecord,
} from "../../src/records.js";

const INSERT_PHASE_TRANSITION = `
  INSERT OR IGNORE INTO phase_transitions
    (conversation_id, n, at, from_phase, to_phase, by, message, reason, event_id, turn, refused)
  VALUES (@conversation_id, @n, @at, @from_phase, @to_phase, @by, @message, @reason, @event_id, @turn, @refused)`;
// The conversation numbers turns; when it did not know this one, count what the index has.
const INSERT_TURN = `
  INSERT OR IGNORE INTO turns
    (conversation_id, turn_id, number, phase, agents, reason, started_n, started_at, deadline, status)
  VALUES (@conversation_id, @turn_id,
    COALESCE(@number, (SELECT COUNT(*) + 1 FROM turns WHERE conversation_id = @conversation_id)),
    @phase, @agents, @reason, @started_n, @started_at, @deadline, 'open')`;
const END_TURN = `
  UPDATE turns SET status = @status, ended_n = @ended_n, ended_at = @ended_at, end_reason = @end_reason
  WHERE conversation_id = @conversation_id AND turn_id = @turn_id AND ended_n IS NULL`;
const INSERT_COMPLETION = `
  INSERT OR IGNORE INTO completions (conversation_id, n, at, turn_id, event_id, agent, message)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;
const INSERT_STATUS_CHANGE = `
  INSERT OR IGNORE INTO status_changes (conversation_id, n, at, status, by, reason) VALUES (?, ?, ?, ?, ?, ?)`;
// The session comes from the conversation as of the batch's last record (not the record's own),
// so re-applying an old cursor record cannot bring back an older session.
const UPSERT_CURSOR = `
  INSERT INTO views (conversation_id, agent, cursor_n, read_n, session) VALUES (?, ?, ?, 0, ?)
  ON CONFLICT (conversation_id, agent) DO UPDATE SET
    cursor_n = MAX(views.cursor_n, excluded.cursor_n), session = excluded.session`;

export class StateWriter {
  private readonly insertPhaseTransition;
  private readonly insertTurn;
  private readonly endTurn;
  private readonly insertCompletion;
  private readonly insertStatusChange;
  private readonly upsertCursor;

  constructor(db: Database.Database) {
    this.insertPhaseTransition = db.prepare<Record<string, string | number | null>>(INSERT_PHASE_TRANSITION);
    this.insertTurn = db.prepare<Record<string, string | number | null>>(INSERT_TURN);
    this.endTurn = db.prepare<Record<string, string | number | null>>(END_TURN);
    this.insertCompletion = db.prepare<[string, number, number, string, string, string, string]>(INSERT_COMPLETION);
    this.insertStatusChange = db.prepare<[string, number, number, string, string | null, string | null]>(INSERT_STATUS_CHANGE);
    this.upsertCursor = db.prepare<[string, string, number, string | null]>(UPSERT_CURSOR);
  }

  phase(conversationId: string, rec: PhaseRecord | PhaseRefusedRecord): void {
    this.insertPhaseTransition.run({
      conversation_id: conversationId, n: rec.n, at: rec.at, from_phase: rec.from, to_phase: rec.to,
      by: rec.by, message: rec.message, reason: rec.reason, event_id: rec.eventId ?? null,
      turn: rec.t === "phase" ? rec.turn ?? null : null, refused: rec.t === "phase_refused" ? 1 : 0,
    });
  }

  /** `number`: the turn's number (IndexItem.turnNumbers), else one more than the turns indexed so far. */
  turnStart(conversationId: string, rec: TurnStartRecord, number: number | undefined): void {
    this.insertTurn.run({
      conversation_id: conversationId, turn_id: rec.turnId, number: number ?? null,
      phase: rec.phase, agents: JSON.stringify(rec.agents), reason: rec.reason,
      started_n: rec.n, started_at: rec.at, deadline: rec.deadline ?? null,
    });
  }

  turnEnd(conversationId: string, rec: TurnEndRecord): void {
    this.endTurn.run({
      conversation_id: conversationId, turn_id: rec.turnId, status: rec.status,
      ended_n: rec.n, ended_at: rec.at, end_reason: rec.reason ?? null,
    });
  }

  completion(conversationId: string, rec: CompletionRecord): void {
    this.insertCompletion.run(conversationId, rec.n, rec.at, rec.turnId, rec.eventId, rec.agent, rec.message);
  }

  status(conversationId: string, rec: StatusRecord | ArchiveRecord): void {
    const status = rec.t === "status" ? rec.status : rec.archived ? "archived" : "unarchived";
    const by = rec.t === "status" ? rec.by ?? null : null;
    const reason = rec.t === "status" ? rec.reason ?? null : null;
    this.insertStatusChange.run(conversationId, rec.n, rec.at, status, by, reason);
  }

  /** `session`: the agent's session as the conversation held it with these records (IndexItem.sessions). */
  cursor(conversationId: string, rec: CursorRecord, session: string | undefined): void {
    this.upsertCursor.run(conversationId, rec.agent, rec.seq, session ?? rec.session ?? null);
  }
}
