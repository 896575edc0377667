// Conversations for the Director: search (title or message text), filters, newest activity
// first, paginated with the total; and one conversation by id. A conversation whose root has
// expired (NIP-40) is hidden unless asked for, as are expired messages matching the search.
// An absent filter binds NULL and drops out.

import type Database from "better-sqlite3";
import { CONVERSATION_SUMMARY_COLUMNS, toConversationSummary, type ConversationSummaryRow } from "./conversation-summary.js";
import type { ConversationSummary } from "../../src/read-model.js";
import { expiredSql, nowSeconds, unexpiredSql } from "./expiry.js";
import type { ConversationSearchQuery } from "../../src/read-model.js";

// SQLite's lower() folds ASCII only: a search for "é" still finds "é", not "É" (previews only;
// titles are folded by JavaScript when indexed).
const SEARCH_FILTER = `
      (@q IS NULL OR instr(c.title_folded, @q) > 0 OR EXISTS (
        SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND instr(lower(m.preview), @q) > 0
          AND (@include_expired = 1 OR ${unexpiredSql("m.expiration", "@now_sec")})))
  AND (@phase IS NULL OR c.phase = @phase)
  AND (@status IS NULL OR c.status = @status)
  AND (@archived IS NULL OR c.archived = @archived)
  AND (@participant IS NULL OR EXISTS (
        SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.pubkey = @participant))
  AND (@include_expired = 1 OR NOT EXISTS (
        SELECT 1 FROM messages r WHERE r.event_id = c.id AND ${expiredSql("r.expiration", "@now_sec")}))`;
// Exported for its query-plan test (test/integration/sqlite-index-dashboard-reads.test.ts).
export const SELECT_SEARCH_PAGE = `
  SELECT ${CONVERSATION_SUMMARY_COLUMNS} FROM conversations c WHERE ${SEARCH_FILTER}
  ORDER BY c.updated_at DESC, c.rowid DESC LIMIT @limit OFFSET @offset`;
const COUNT_SEARCH = `SELECT COUNT(*) FROM conversations c WHERE ${SEARCH_FILTER}`;
// Without a filter the total needs no visit of each conversation: all of them (a count of the
// smallest index) less those whose root has expired (messages_expiring holds only messages
// with an expiration). The same number COUNT_SEARCH gives with every filter NULL.
const COUNT_ALL = `SELECT COUNT(*) FROM conversations`;
const COUNT_EXPIRED_ROOTS = `
  SELECT COUNT(*) FROM messages r JOIN conversations c ON c.id = r.event_id
  WHERE ${expiredSql("r.expiration", "@now_sec")}`;
const SELECT_CONVERSATION = `SELECT ${CONVERSATION_SUMMARY_COLUMNS} FROM conversations c WHERE c.id = ?`;

type Params = Record<string, string | number | null>;

function bindings(f: ConversationSearchQuery): Params {
  return {
    q: f.q !== undefined && f.q.trim() !== "" ? f.q.trim().toLowerCase() : null,
    phase: f.phase ?? null,
    status: f.status ?? null,
    archived: f.archived === undefined ? null : f.archived ? 1 : 0,
    participant: f.participant ?? null,
    include_expired: f.includeExpired ? 1 : 0,
    now_sec: nowSeconds(f.now),
  };
}

export class ConversationSearch {
  private readonly page;
  private readonly count;
  private readonly countAll;
  private readonly countExpiredRoots;
  private readonly one;

  constructor(db: Database.Database) {
    this.page = db.prepare<Params, ConversationSummaryRow>(SELECT_SEARCH_PAGE);
    this.count = db.prepare<Params, number>(COUNT_SEARCH).pluck();
    this.countAll = db.prepare<[], number>(COUNT_ALL).pluck();
    this.countExpiredRoots = db.prepare<{ now_sec: number }, number>(COUNT_EXPIRED_ROOTS).pluck();
    this.one = db.prepare<[string], ConversationSummaryRow>(SELECT_CONVERSATION);
  }

  list(f: ConversationSearchQuery): { total: number; items: ConversationSummary[] } {
    const params = bindings(f);
    const items = this.page.all({ ...params, limit: f.limit, offset: f.offset }).map(toConversationSummary);
    return { total: this.total(params), items };
  }

  private total(p: Params): number {
    if (p.q !== null || p.phase !== null || p.status !== null || p.archived !== null || p.participant !== null) {
      return this.count.get(p) ?? 0;
    }
    const all = this.countAll.get() ?? 0;
    return p.include_expired === 1 ? all : all - (this.countExpiredRoots.get({ now_sec: p.now_sec as number }) ?? 0);
  }

  get(id: string): ConversationSummary | undefined {
    const r = this.one.get(id);
    return r && toConversationSummary(r);
  }
}
