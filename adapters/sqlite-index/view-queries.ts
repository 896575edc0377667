// Read tracking of one conversation as the index keeps it: each agent's cursor (what it has
// seen) and read mark, its acks, and the position of the last message, which together say who
// has viewed the conversation since its last message.

import type Database from "better-sqlite3";

const SELECT_VIEWS = `SELECT agent, cursor_n, read_n FROM views WHERE conversation_id = ? ORDER BY agent`;
const SELECT_LAST_MESSAGE_N = `SELECT MAX(n) FROM messages WHERE conversation_id = ?`;
const SELECT_ACKS = `SELECT agent, event_id FROM acks WHERE conversation_id = ? ORDER BY n`;

export interface ViewRow {
  agent: string;
  /** Log position up to which the agent has seen the conversation. */
  cursor: number;
  /** Log position up to which the agent has read it. */
  read: number;
}

export class ViewQueries {
  private readonly views;
  private readonly lastMessage;
  private readonly acks;

  constructor(db: Database.Database) {
    this.views = db.prepare<[string], { agent: string; cursor_n: number; read_n: number }>(SELECT_VIEWS);
    this.lastMessage = db.prepare<[string], number | null>(SELECT_LAST_MESSAGE_N).pluck();
    this.acks = db.prepare<[string], { agent: string; event_id: string }>(SELECT_ACKS);
  }

  viewsOf(conversationId: string): ViewRow[] {
    return this.views.all(conversationId).map((r) => ({ agent: r.agent, cursor: r.cursor_n, read: r.read_n }));
  }

  lastMessageN(conversationId: string): number {
    return this.lastMessage.get(conversationId) ?? 0;
  }

  acksOf(conversationId: string): { agent: string; eventId: string }[] {
    return this.acks.all(conversationId).map((r) => ({ agent: r.agent, eventId: r.event_id }));
  }
}
