// The audit trail of one conversation: every message and state change, in log order. One
// statement: each source table contributes rows (n, at, kind, JSON details), SQL merges them.

import type Database from "better-sqlite3";
import type { AuditEntry } from "../../src/read-model.js";

const SELECT_AUDIT_TRAIL = `
  SELECT n, received_at AS at, 'message' AS kind, json_object(
    'eventId', event_id, 'author', author, 'eventKind', kind, 'type', type, 'priority', priority,
    'createdAt', created_at, 'parentId', parent_id, 'preview', preview) AS data
  FROM messages WHERE conversation_id = @id
  UNION ALL
  SELECT n, at, CASE refused WHEN 1 THEN 'phase_refused' ELSE 'phase' END, json_object(
    'from', from_phase, 'to', to_phase, 'by', by, 'reason', reason, 'message', message,
    'eventId', event_id, 'turn', turn)
  FROM phase_transitions WHERE conversation_id = @id
  UNION ALL
  SELECT started_n, started_at, 'turn_start', json_object(
    'turnId', turn_id, 'number', number, 'phase', phase, 'agents', json(agents), 'reason', reason,
    'deadline', deadline)
  FROM turns WHERE conversation_id = @id
  UNION ALL
  SELECT n, at, 'completion', json_object('turnId', turn_id, 'eventId', event_id, 'agent', agent, 'message', message)
  FROM completions WHERE conversation_id = @id
  UNION ALL
  SELECT ended_n, ended_at, 'turn_end', json_object('turnId', turn_id, 'status', status, 'reason', end_reason)
  FROM turns WHERE conversation_id = @id AND ended_n IS NOT NULL
  UNION ALL
  SELECT n, at, 'status', json_object('status', status, 'by', by, 'reason', reason)
  FROM status_changes WHERE conversation_id = @id
  ORDER BY 1`;


interface Row {
  n: number;
  at: number;
  kind: AuditEntry["kind"];
  data: string;
}

export class AuditQueries {
  private readonly select;

  constructor(db: Database.Database) {
    this.select = db.prepare<{ id: string }, Row>(SELECT_AUDIT_TRAIL);
  }

  auditTrail(conversationId: string): AuditEntry[] {
    return this.select.all({ id: conversationId })
      .map((r) => ({ n: r.n, at: r.at, kind: r.kind, data: JSON.parse(r.data) }) as AuditEntry);
  }
}
