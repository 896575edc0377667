// Messages across conversations, filtered by conversation, recipient (optionally unread only),
// author and type, paginated with the total; plus the recipients of a message. Expired messages
// (NIP-40: from their expiration second on) are hidden unless asked for.

import type Database from "better-sqlite3";

const COLUMNS = `
  m.rowid AS seq, m.conversation_id, c.rowid AS conversation_seq, m.n, m.event_id, m.author, m.kind,
  m.type, m.priority, m.created_at, m.expiration, m.parent_id, m.preview, m.size, m.received_at`;
const FILTER = `
      (@conversation IS NULL OR m.conversation_id = @conversation)
  AND (@recipient IS NULL OR EXISTS (
        SELECT 1 FROM recipients r WHERE r.conversation_id = m.conversation_id AND r.n = m.n
          AND r.recipient = @recipient AND (@unread = 0 OR r.unread = 1)))
  AND (@author IS NULL OR m.author = @author)
  AND (@type IS NULL OR m.type = @type)
  AND (@include_expired = 1 OR m.expiration IS NULL OR m.expiration > @now_sec)`;
const JOINS = `FROM messages m JOIN conversations c ON c.id = m.conversation_id`;
const FROM = `${JOINS} WHERE ${FILTER}`;
const ORDERS = {
  asc: "m.created_at, m.rowid",
  desc: "m.created_at DESC, m.rowid DESC",
  // An inbox: most urgent first, then oldest first (src/messaging/priority.ts).
  priority: "m.priority_rank, m.created_at, m.rowid",
} as const;
const SELECT_PAGE = Object.fromEntries(
  Object.entries(ORDERS).map(([k, order]) => [k, `SELECT ${COLUMNS} ${FROM} ORDER BY ${order} LIMIT @limit OFFSET @offset`]),
) as Record<MessageOrder, string>;
const COUNT_PAGE = `SELECT COUNT(*) ${FROM}`;
const SELECT_ONE = `SELECT ${COLUMNS} ${JOINS} WHERE m.event_id = ?`;
const SELECT_RECIPIENTS = `SELECT recipient, unread FROM recipients WHERE conversation_id = ? AND n = ? ORDER BY recipient`;

export type MessageOrder = keyof typeof ORDERS;

export interface MessageQuery {
  conversation?: string;
  recipient?: string;
  /** With `recipient`: only what that recipient has not read (nor acked). */
  unread?: boolean;
  author?: string;
  type?: string;
  includeExpired?: boolean;
  /** Epoch ms. */
  now: number;
  order: MessageOrder;
  limit: number;
  offset: number;
}

export interface MessageRow {
  seq: number;
  conversationId: string;
  conversationSeq: number;
  n: number;
  eventId: string;
  author: string;
  kind: number;
  type: string | null;
  priority: string | null;
  /** Unix seconds. */
  createdAt: number;
  expiration: number | null;
  parentId: string | null;
  preview: string;
  size: number;
  /** Epoch ms the daemon logged it. */
  receivedAt: number;
}

interface Row {
  seq: number; conversation_id: string; conversation_seq: number; n: number; event_id: string; author: string;
  kind: number; type: string | null; priority: string | null; created_at: number; expiration: number | null;
  parent_id: string | null; preview: string; size: number; received_at: number;
}

const toRow = (r: Row): MessageRow => ({
  seq: r.seq, conversationId: r.conversation_id, conversationSeq: r.conversation_seq, n: r.n, eventId: r.event_id,
  author: r.author, kind: r.kind, type: r.type, priority: r.priority, createdAt: r.created_at,
  expiration: r.expiration, parentId: r.parent_id, preview: r.preview, size: r.size, receivedAt: r.received_at,
});

type Params = Record<string, string | number | null>;

function bindings(q: MessageQuery): Params {
  return {
    conversation: q.conversation ?? null,
    recipient: q.recipient ?? null,
    unread: q.unread ? 1 : 0,
    author: q.author ?? null,
    type: q.type ?? null,
    include_expired: q.includeExpired ? 1 : 0,
    now_sec: Math.floor(q.now / 1000),
  };
}

export class MessageQueries {
  private readonly pages: Record<MessageOrder, Database.Statement<Params, Row>>;
  private readonly count;
  private readonly recipients;
  private readonly one;

  constructor(db: Database.Database) {
    this.pages = {
      asc: db.prepare<Params, Row>(SELECT_PAGE.asc),
      desc: db.prepare<Params, Row>(SELECT_PAGE.desc),
      priority: db.prepare<Params, Row>(SELECT_PAGE.priority),
    };
    this.count = db.prepare<Params, number>(COUNT_PAGE).pluck();
    this.recipients = db.prepare<[string, number], { recipient: string; unread: number }>(SELECT_RECIPIENTS);
    this.one = db.prepare<[string], Row>(SELECT_ONE);
  }

  get(eventId: string): MessageRow | undefined {
    const r = this.one.get(eventId);
    return r && toRow(r);
  }

  list(q: MessageQuery): { total: number; items: MessageRow[] } {
    const params = bindings(q);
    const items = this.pages[q.order].all({ ...params, limit: q.limit, offset: q.offset }).map(toRow);
    return { total: this.count.get(params) ?? 0, items };
  }

  recipientsOf(conversationId: string, n: number): { recipient: string; unread: boolean }[] {
    return this.recipients.all(conversationId, n).map((r) => ({ recipient: r.recipient, unread: r.unread === 1 }));
  }
}
