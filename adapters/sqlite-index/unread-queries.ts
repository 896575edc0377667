// Unread mail of one agent: counts, the priority-ordered list, and the inbox (the list with
// conversation titles plus per-conversation counts). Unread rows are maintained on apply
// (unread-marks.ts); here only the time-dependent part, NIP-40 expiry (expiry.ts), is applied.

import type Database from "better-sqlite3";
import { expiredSql, nowSeconds, unexpiredSql } from "./expiry.js";
import { MESSAGE_SUMMARY_COLUMNS, toMessageSummary, type MessageSummaryRow } from "./message-summary.js";
import type { MessageSummary } from "../../src/read-model.js";
import type { Inbox, InboxConversation, InboxOptions, UnreadOptions, UnreadPage } from "../../src/read-model.js";

const SELECT_UNREAD_TOTAL = `SELECT unread FROM unread_totals WHERE agent = ?`;
const COUNT_EXPIRED_UNREAD = `
  SELECT COUNT(*) FROM recipients
  WHERE recipient = @agent AND unread = 1 AND ${expiredSql("expiration", "@now_sec")}`;
const COUNT_EXPIRED_UNREAD_BY_CONVERSATION = `
  SELECT conversation_id, COUNT(*) AS expired FROM recipients
  WHERE recipient = @agent AND unread = 1 AND ${expiredSql("expiration", "@now_sec")}
  GROUP BY conversation_id`;
// Walks recipients_unread_order in index order: no sort, however many rows are unread. The
// conversation row is written in the same transaction as its messages, so the join always finds it.
const SELECT_UNREAD_PAGE = `
  SELECT ${MESSAGE_SUMMARY_COLUMNS}, c.title, c.project
  FROM recipients r
  JOIN messages m ON m.conversation_id = r.conversation_id AND m.n = r.n
  LEFT JOIN conversations c ON c.id = r.conversation_id
  WHERE r.recipient = @agent AND r.unread = 1
    AND (@include_expired = 1 OR ${unexpiredSql("r.expiration", "@now_sec")})
  ORDER BY r.priority_rank, r.created_at, r.conversation_id, r.n
  LIMIT @limit OFFSET @offset`;
// The counts by rank kept on apply (unread_by_rank), less the expired unread rows, which only
// messages with an expiration can be: recipients_unread_expiring holds just those.
const SELECT_UNREAD_BY_RANK = `SELECT priority_rank AS rank, unread FROM unread_by_rank WHERE agent = ?`;
const COUNT_EXPIRED_UNREAD_BY_RANK = `
  SELECT priority_rank AS rank, COUNT(*) AS expired FROM recipients
  WHERE recipient = @agent AND unread = 1 AND ${expiredSql("expiration", "@now_sec")}
  GROUP BY priority_rank`;
// Sorted and cut in SQL: an agent may have unread mail in hundreds of conversations.
const SELECT_UNREAD_BY_CONVERSATION = `
  SELECT u.conversation_id, u.unread, c.title, c.phase, c.updated_at
  FROM unread_counts u JOIN conversations c ON c.id = u.conversation_id
  WHERE u.agent = ?
  ORDER BY c.updated_at DESC, c.id
  LIMIT ?`;

interface PageRow extends MessageSummaryRow {
  title: string | null;
  project: string | null;
}

type AgentAt = { agent: string; now_sec: number };

export class UnreadQueries {
  private readonly selectUnreadTotal;
  private readonly countExpired;
  private readonly countExpiredByConversation;
  private readonly selectPage;
  private readonly selectByConversation;
  private readonly selectByRank;
  private readonly countExpiredByRank;

  constructor(db: Database.Database) {
    this.selectUnreadTotal = db.prepare<[string], number>(SELECT_UNREAD_TOTAL).pluck();
    this.countExpired = db.prepare<AgentAt, number>(COUNT_EXPIRED_UNREAD).pluck();
    this.countExpiredByConversation =
      db.prepare<AgentAt, { conversation_id: string; expired: number }>(COUNT_EXPIRED_UNREAD_BY_CONVERSATION);
    this.selectByRank = db.prepare<[string], { rank: number; unread: number }>(SELECT_UNREAD_BY_RANK);
    this.countExpiredByRank = db.prepare<AgentAt, { rank: number; expired: number }>(COUNT_EXPIRED_UNREAD_BY_RANK);
    this.selectPage = db.prepare<Record<string, string | number>, PageRow>(SELECT_UNREAD_PAGE);
    this.selectByConversation = db.prepare<[string, number], {
      conversation_id: string; unread: number; title: string; phase: string; updated_at: number;
    }>(SELECT_UNREAD_BY_CONVERSATION);
  }

  unreadCount(agent: string, now: number, includeExpired = false): number {
    const all = this.selectUnreadTotal.get(agent) ?? 0;
    return includeExpired ? all : all - (this.countExpired.get({ agent, now_sec: nowSeconds(now) }) ?? 0);
  }

  byPriorityRank(agent: string, now: number): number[] {
    const counts: number[] = [];
    for (const r of this.selectByRank.all(agent)) counts[r.rank] = r.unread;
    for (const r of this.countExpiredByRank.all({ agent, now_sec: nowSeconds(now) })) counts[r.rank]! -= r.expired;
    // As long as the highest rank with unexpired mail plus one: a rank whose mail has all expired
    // at the top is left out, as a count of the unexpired rows alone would.
    while (counts.length > 0 && !counts[counts.length - 1]) counts.pop();
    return Array.from(counts, (c) => c ?? 0);
  }

  unreadList(agent: string, opts: UnreadOptions): UnreadPage<MessageSummary> {
    return { total: this.unreadCount(agent, opts.now, opts.includeExpired), items: this.page(agent, opts).map(toMessageSummary) };
  }

  inbox(agent: string, opts: InboxOptions): Inbox {
    const items = this.page(agent, opts).map((r) => ({ ...toMessageSummary(r), title: r.title ?? "", project: r.project ?? "" }));
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
      for (const r of this.countExpiredByConversation.all({ agent, now_sec: nowSeconds(opts.now) })) {
        expired.set(r.conversation_id, r.expired);
      }
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
