// Messages across conversations, filtered by conversation, recipient (optionally unread only),
// author and type, in one of three orders, paginated with the total; one message by event id;
// the recipients of a message. Expired messages (NIP-40) are hidden unless asked for.

import type Database from "better-sqlite3";
import { nowSeconds, unexpiredSql } from "./expiry.js";
import { MESSAGE_SUMMARY_COLUMNS, toMessageSummary, type MessageSummaryRow } from "./message-summary.js";
import type { MessageSummary } from "../../src/read-model.js";
import type { MessageOrder, MessageQuery } from "../../src/read-model.js";

const FROM_MESSAGES = `FROM messages m JOIN conversations c ON c.id = m.conversation_id`;
const MESSAGE_FILTER = `
      (@conversation IS NULL OR m.conversation_id = @conversation)
  AND (@recipient IS NULL OR EXISTS (
        SELECT 1 FROM recipients r WHERE r.conversation_id = m.conversation_id AND r.n = m.n
          AND r.recipient = @recipient AND (@unread = 0 OR r.unread = 1)))
  AND (@author IS NULL OR m.author = @author)
  AND (@type IS NULL OR m.type = @type)
  AND (@include_expired = 1 OR ${unexpiredSql("m.expiration", "@now_sec")})`;
const ORDERS = {
  asc: "m.created_at, m.rowid",
  desc: "m.created_at DESC, m.rowid DESC",
  // An inbox: most urgent first, then oldest first (src/messaging/priority.ts).
  priority: "m.priority_rank, m.created_at, m.rowid",
} as const satisfies Record<MessageOrder, string>;
const SELECT_MESSAGE_PAGE = Object.fromEntries(Object.entries(ORDERS).map(([k, order]) => [
  k, `SELECT ${MESSAGE_SUMMARY_COLUMNS} ${FROM_MESSAGES} WHERE ${MESSAGE_FILTER} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
])) as Record<MessageOrder, string>;
const COUNT_MESSAGES = `SELECT COUNT(*) ${FROM_MESSAGES} WHERE ${MESSAGE_FILTER}`;
const SELECT_MESSAGE = `SELECT ${MESSAGE_SUMMARY_COLUMNS} ${FROM_MESSAGES} WHERE m.event_id = ?`;
const SELECT_RECIPIENTS = `SELECT recipient, unread FROM recipients WHERE conversation_id = ? AND n = ? ORDER BY recipient`;

type Params = Record<string, string | number | null>;

function bindings(q: MessageQuery): Params {
  return {
    conversation: q.conversation ?? null,
    recipient: q.recipient ?? null,
    unread: q.unread ? 1 : 0,
    author: q.author ?? null,
    type: q.type ?? null,
    include_expired: q.includeExpired ? 1 : 0,
    now_sec: nowSeconds(q.now),
  };
}

export class MessageQueries {
  private readonly pages: Record<MessageOrder, Database.Statement<Params, MessageSummaryRow>>;
  private readonly count;
  private readonly recipients;
  private readonly one;

  constructor(db: Database.Database) {
    this.pages = {
      asc: db.prepare<Params, MessageSummaryRow>(SELECT_MESSAGE_PAGE.asc),
      desc: db.prepare<Params, MessageSummaryRow>(SELECT_MESSAGE_PAGE.desc),
      priority: db.prepare<Params, MessageSummaryRow>(SELECT_MESSAGE_PAGE.priority),
    };
    this.count = db.prepare<Params, number>(COUNT_MESSAGES).pluck();
    this.recipients = db.prepare<[string, number], { recipient: string; unread: number }>(SELECT_RECIPIENTS);
    this.one = db.prepare<[string], MessageSummaryRow>(SELECT_MESSAGE);
  }

  get(eventId: string): MessageSummary | undefined {
    const r = this.one.get(eventId);
    return r && toMessageSummary(r);
  }

  list(q: MessageQuery): { total: number; items: MessageSummary[] } {
    const params = bindings(q);
    const items = this.pages[q.order].all({ ...params, limit: q.limit, offset: q.offset }).map(toMessageSummary);
    return { total: this.count.get(params) ?? 0, items };
  }

  recipientsOf(conversationId: string, n: number): { recipient: string; unread: boolean }[] {
    return this.recipients.all(conversationId, n).map((r) => ({ recipient: r.recipient, unread: r.unread === 1 }));
  }
}
