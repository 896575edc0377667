// One indexed conversation as every listing of the index gives it (the filtered list, the
// Director's search, one conversation by id): the columns selected and the one mapper from them.

import type { ConversationSummary } from "../../src/read-model.js";

/** What a query selects for a ConversationSummary, from `conversations c`. */
export const CONVERSATION_SUMMARY_COLUMNS = `
  c.rowid AS seq, c.id, c.project, c.title, c.phase, c.status, c.archived, c.root_kind, c.created_at,
  c.updated_at, c.message_count, c.last_n, c.last_message_at, c.exec_ms`;

export interface ConversationSummaryRow {
  seq: number; id: string; project: string; title: string; phase: string; status: string; archived: number;
  root_kind: number | null; created_at: number; updated_at: number; message_count: number; last_n: number;
  last_message_at: number | null; exec_ms: number;
}

export const toConversationSummary = (r: ConversationSummaryRow): ConversationSummary => ({
  seq: r.seq, id: r.id, project: r.project, title: r.title, phase: r.phase, status: r.status,
  archived: r.archived === 1, rootKind: r.root_kind, createdAt: r.created_at, updatedAt: r.updated_at,
  messageCount: r.message_count, lastN: r.last_n, lastMessageAt: r.last_message_at, execMs: r.exec_ms,
});
