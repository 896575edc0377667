// One indexed message as every read of the index gives it (an agent's unread mail, its inbox,
// the message search): the columns selected and the one mapper from them. The preview, not the
// content: the log holds the content.

import type { MessageSummary } from "../../src/read-model.js";

/** What a query selects for a MessageSummary, from `messages m` joined to `conversations c`. */
export const MESSAGE_SUMMARY_COLUMNS = `
  m.rowid AS seq, m.conversation_id, c.rowid AS conversation_seq, m.n, m.event_id, m.author, m.kind,
  m.type, m.priority, m.created_at, m.expiration, m.parent_id, m.preview, m.size, m.received_at`;

export interface MessageSummaryRow {
  seq: number; conversation_id: string; conversation_seq: number; n: number; event_id: string; author: string;
  kind: number; type: string | null; priority: string | null; created_at: number; expiration: number | null;
  parent_id: string | null; preview: string; size: number; received_at: number;
}

export const toMessageSummary = (r: MessageSummaryRow): MessageSummary => ({
  seq: r.seq, conversationId: r.conversation_id, conversationSeq: r.conversation_seq, n: r.n, eventId: r.event_id,
  author: r.author, kind: r.kind, type: r.type, priority: r.priority, createdAt: r.created_at,
  expiration: r.expiration, parentId: r.parent_id, preview: r.preview, size: r.size, receivedAt: r.received_at,
});
