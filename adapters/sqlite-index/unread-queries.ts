// Unread mail of one agent: counts, the priority-ordered list, and the inbox (the list with
// conversation titles plus per-conversation counts). Unread rows are maintained on apply
// (unread-marks.ts); here only the time-dependent part, NIP-40 expiry, is applied.

import type Database from "better-sqlite3";

const SELECT_UNREAD_TOTAL = `SELECT unread FROM unread_totals WHERE agent = ?`;
const COUNT_EXPIRED_UNREAD = `
  SELECT COUNT(*) FROM recipients
  WHERE recipient = ? AND unread = 1 AND expiration IS NOT NULL AND expiration < ?`;
const COUNT_EXPIRED_UNREAD_BY_CONVERSATION = `
  SELECT conversation_id, COUNT(*) AS expired FROM recipients
  WHERE recipient = ? AND unread = 1 AND expiration IS NOT NULL AND expiration < ?
  GROUP BY conversation_id`;
// Walks recipients_unread_order in index order: no sort, however many rows are unread.
const SELECT_UNREAD_PAGE = `
  SELECT r.conversation_id, r.n, m.event_id, r.created_at, r.expiration,
         m.author, m.kind, m.type, m.priority, m.preview, m.size, m.parent_id,
         c.title, c.project
  FROM recipients r
  JOIN messages m ON m.conversation_id = r.conversation_id AND m.n = r.n
  LEFT JOIN conversations c ON c.id = r.conversation_id
  WHERE r.recipient = @agent AND r.unread = 1
    AND (@include_expired = 1 OR r.expiration IS NULL OR r.expiration >= @now_sec)
  ORDER BY r.priority_rank, r.created_at, r.conversation_id, r.n
  LIMIT @limit OFFSET @offset`;
// Sorted and cut in SQL: an agent may have unread mail in hundreds of conversations.
const SELECT_UNREAD_BY_CONVERSATION = `
  SELECT u.conversation_id, u.unread, c.title, c.phase, c.updated_at
  FROM unread_counts u JOIN conversations c ON c.id = u.conversation_id
  WHERE u.agent = ?
  ORDER BY c.updated_at DESC, c.id
  LIMIT ?`;

export interface UnreadOptions {
  /** Epoch ms (Clock.now()); a message whose `expiration` (unix s) is before it is expired. */
  now: number;
  limit?: number;
  offset?: number;
  /** Include expired messages (hidden by default). */
  includeExpired?: boolean;
}

export interface UnreadMessage {
  conversationId: string;
  /** Position in the conversation's log. */
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
}

export interface InboxOptions extends UnreadOptions {
  /** How many conversations with unread mail to summarise, most recently active first (default 20). */
  conversations?: number;
}

export interface InboxMessage extends UnreadMessage {
  title: string;
  project: string;
}

export interface UnreadPage<T> {
  /** Unread messages in all (the page is `items`). */
  total: number;
  items: T[];
}

export interface InboxConversation {
  conversationId: string;
  title: string;
  phase: string;
  updatedAt: number;
  unread: number;
}

export interface Inbox extends UnreadPage<InboxMessage> {
  /** Conversations with unread messages, most recently active first (up to `conversations`). */
  conversations: InboxConversation[];
}

interface PageRow {
  conversation_id: string; n: number; event_id: string; created_at: number; expiration: number | null;
  author: string; kind: number; type: string | null; priority: string | null; preview: string; size: number;
  parent_id: string | null; title: string | null; project: string | null;
}

const toMessage = (r: PageRow): UnreadMessage => ({
  conversationId: r.conversation_id, n: r.n, eventId: r.event_id, author: r.author, kind: r.kind,
  type: r.type, priority: r.priority, createdAt: r.created_at, expiration: r.expiration,
  parentId: r.parent_id, preview: r.preview, size: r.size,
});

export const nowSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

export class UnreadQueries {
  private readonly selectUnreadTotal;
  private readonly countExpired;
  private readonly countExpiredByConversation;
  private readonly selectPage;
  private readonly selectByConversation;

  constructor(db: Database.Database) {
    this.selectUnreadTotal = db.prepare<[string], number>(SELECT_UNREAD_TOTAL).pluck();
    this.countExpired = db.prepare<[string, number], number>(COUNT_EXPIRED_UNREAD).pluck();
    this.countExpiredByConversation =
      db.prepare<[string, number], { conversation_id: string; expired: number }>(COUNT_EXPIRED_UNREAD_BY_CONVERSATION);
    this.selectPage = db.prepare<Record<string, string | number>, PageRow>(SELECT_UNREAD_PAGE);
    this.selectByConversation = db.prepare<[string, number], {
      conversation_id: string; unread: number; title: string; phase: string; updated_at: number;
    }>(SELECT_UNREAD_BY_CONVERSATION);
  }

  unreadCount(agent: string, now: number, includeExpired = false): number {
    const all = this.selectUnreadTotal.get(agent) ?? 0;
    return includeExpired ? all : all - (this.countExpired.get(agent, nowSeconds(now)) ?? 0);
  }

  unreadList(agent: string, opts: UnreadOptions): UnreadPage<UnreadMessage> {
    return { total: this.unreadCount(agent, opts.now, opts.includeExpired), items: this.page(agent, opts).map(toMessage) };
  }

  inbox(agent: string, opts: InboxOptions): Inbox {
    const items = this.page(agent, opts).map((r) => ({ ...toMessage(r), title: r.title ?? "", project: r.project ?? "" }));
    return {
      total: this.unreadCount(agent, opts.now, opts.includeExpired),
      items,
      conversations: this.conversations(agent, opts),
    };
  }

  private page(agent: string, opts: UnreadOptions): PageRow[] {
    return this.selectPage.all({
      agent, include_expired: opts.includeExpired ? 1 : 0, now_sec: nowSeconds(opts.now),
      limit: opts.limit ?? 50, offset: opts.offset ?? 0,
    });
  }

  private conversations(agent: string, opts: InboxOptions): InboxConversation[] {
    const expired = new Map<string, number>();
    if (!opts.includeExpired) {
      for (const r of this.countExpiredByConversation.all(agent, nowSeconds(opts.now))) expired.set(r.conversation_id, r.expired);
    }
    // A conversation whose unread mail has all expired drops out of the page (which may then be short).
    return this.selectByConversation.all(agent, opts.conversations ?? 20)
      .map((r) => ({
        conversationId: r.conversation_id, title: r.title, phase: r.phase, updatedAt: r.updated_at,
        unread: r.unread - (expired.get(r.conversation_id) ?? 0),
      }))
      .filter((c) => c.unread > 0);
  }
}
