// Conversations for the Director: search (title or message words), filters, newest activity
// first, paginated with the total; and one conversation by id. A conversation whose root has
// expired (NIP-40) is hidden unless asked for, as are expired messages matching the search.
// An absent filter binds NULL and drops out.
//
// The search (docs/api.md): a title containing the query, or a message whose preview holds every
// word of it (src/search-words.ts), found through message_words (message-words.ts). Its total
// is exact when the words are in fewer than EXACT_MATCHES visible messages (their
// conversations are then a small set, read from the word index at once); beyond that the list
// walks the conversations newest first, one seek in the word index each, and the total is a
// lower bound (`totalAtLeast`: through the page, and one more when a next page exists):
// counting every match of a common word at a million messages costs more than a page may
// (docs/dashboard.md).

import type Database from "better-sqlite3";
import { CONVERSATION_SUMMARY_COLUMNS, toConversationSummary, type ConversationSummaryRow } from "./conversation-summary.js";
import type { ConversationList, ConversationSearchQuery, ConversationSummary } from "../../src/read-model.js";
import { searchWords } from "../../src/search-words.js";
import { expiredSql, nowSeconds } from "./expiry.js";
import { conversationOfKey, wordsKeyFrom, wordsKeyTo } from "./message-words.js";

/** Visible messages holding the words below which the search's total is exact. */
export const EXACT_MATCHES = 5_000;

// The word-index keys of expired messages: few (messages_expiring holds only messages with an
// expiration), so the test below is one look-up in a list built once per statement.
const EXPIRED_KEYS = `
  SELECT ${wordsKeyFrom("xc.rowid")} + xm.n FROM messages xm JOIN conversations xc ON xc.id = xm.conversation_id
  WHERE ${expiredSql("xm.expiration", "@now_sec")}`;
const VISIBLE = `(@include_expired = 1 OR message_words.rowid NOT IN (${EXPIRED_KEYS}))`;
// The first @matches visible messages holding the words, in key order (conversation by
// conversation).
const MATCHING_KEYS = `
  SELECT message_words.rowid AS k FROM message_words WHERE message_words MATCH @match AND ${VISIBLE} LIMIT @matches`;
const PROBE = `SELECT COUNT(*) FROM (${MATCHING_KEYS})`;

const TITLE = `instr(c.title_folded, @q) > 0`;
// How a conversation is found by its text, by way of finding it.
const TEXT_BY = {
  none: `1`,
  title: TITLE,
  set: `(${TITLE} OR c.rowid IN (SELECT ${conversationOfKey("k")} FROM (${MATCHING_KEYS})))`,
  seek: `(${TITLE} OR EXISTS (SELECT 1 FROM message_words WHERE message_words MATCH @match
      AND message_words.rowid BETWEEN ${wordsKeyFrom("c.rowid")} AND ${wordsKeyTo("c.rowid")} AND ${VISIBLE}))`,
} as const;
type TextBy = keyof typeof TEXT_BY;

const FILTERS = `
      (@phase IS NULL OR c.phase = @phase)
  AND (@status IS NULL OR c.status = @status)
  AND (@archived IS NULL OR c.archived = @archived)
  AND (@participant IS NULL OR EXISTS (
        SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.pubkey = @participant))
  AND (@include_expired = 1 OR NOT EXISTS (
        SELECT 1 FROM messages r WHERE r.event_id = c.id AND ${expiredSql("r.expiration", "@now_sec")}))`;
// Exported for its query-plan test (test/integration/sqlite-index-dashboard-reads.test.ts).
export const searchPageSql = (by: TextBy): string => `
  SELECT ${CONVERSATION_SUMMARY_COLUMNS} FROM conversations c WHERE ${TEXT_BY[by]} AND ${FILTERS}
  ORDER BY c.updated_at DESC, c.rowid DESC LIMIT @limit OFFSET @offset`;
const countSql = (by: TextBy): string => `SELECT COUNT(*) FROM conversations c WHERE ${TEXT_BY[by]} AND ${FILTERS}`;
// Without a filter the total needs no visit of each conversation: all of them (a count of the
// smallest index) less those whose root has expired (messages_expiring holds only messages
// with an expiration). The same number countSql("none") gives.
const COUNT_ALL = `SELECT COUNT(*) FROM conversations`;
const COUNT_EXPIRED_ROOTS = `
  SELECT COUNT(*) FROM messages r JOIN conversations c ON c.id = r.event_id
  WHERE ${expiredSql("r.expiration", "@now_sec")}`;
const SELECT_CONVERSATION = `SELECT ${CONVERSATION_SUMMARY_COLUMNS} FROM conversations c WHERE c.id = ?`;

type Params = Record<string, string | number | null>;
const TEXT_KINDS = Object.keys(TEXT_BY) as TextBy[];

function bindings(f: ConversationSearchQuery): Params {
  const q = f.q?.trim() ?? "";
  const words = searchWords(q);
  return {
    q: q === "" ? null : q.toLowerCase(),
    // Each word quoted: FTS5 then reads it as a plain term, never as an operator.
    match: words.length === 0 ? null : words.map((w) => `"${w}"`).join(" "),
    phase: f.phase ?? null,
    status: f.status ?? null,
    archived: f.archived === undefined ? null : f.archived ? 1 : 0,
    participant: f.participant ?? null,
    include_expired: f.includeExpired ? 1 : 0,
    now_sec: nowSeconds(f.now),
  };
}

export class ConversationSearch {
  private readonly pages;
  private readonly counts;
  private readonly probe;
  private readonly countAll;
  private readonly countExpiredRoots;
  private readonly one;

  /** `exactMatches`: EXACT_MATCHES (smaller in tests, to reach a lower-bound total). */
  constructor(db: Database.Database, private readonly exactMatches = EXACT_MATCHES) {
    const each = <T>(make: (by: TextBy) => T) => Object.fromEntries(TEXT_KINDS.map((k) => [k, make(k)])) as Record<TextBy, T>;
    this.pages = each((by) => db.prepare<Params, ConversationSummaryRow>(searchPageSql(by)));
    this.counts = each((by) => db.prepare<Params, number>(countSql(by)).pluck());
    this.probe = db.prepare<Params, number>(PROBE).pluck();
    this.countAll = db.prepare<[], number>(COUNT_ALL).pluck();
    this.countExpiredRoots = db.prepare<{ now_sec: number }, number>(COUNT_EXPIRED_ROOTS).pluck();
    this.one = db.prepare<[string], ConversationSummaryRow>(SELECT_CONVERSATION);
  }

  list(f: ConversationSearchQuery): ConversationList {
    const p = bindings(f);
    const bound = { ...p, matches: this.exactMatches };
    const by: TextBy = p.q === null ? "none" : p.match === null ? "title" : this.probe.get(bound) === this.exactMatches ? "seek" : "set";
    // One more than the page: whether a next page exists, which a lower-bound total must allow.
    const rows = this.pages[by].all({ ...bound, limit: f.limit + 1, offset: f.offset });
    const items = rows.slice(0, f.limit).map(toConversationSummary);
    if (by !== "seek") return { total: this.total(by, bound), items };
    // Those before this page, this page, and one more if a next page exists: a count of more
    // would visit every match (measured at a million messages: docs/dashboard.md).
    return { total: null, totalAtLeast: f.offset + rows.length, items };
  }

  private total(by: TextBy, p: Params): number {
    if (by !== "none" || p.phase !== null || p.status !== null || p.archived !== null || p.participant !== null) {
      return this.counts[by].get(p) ?? 0;
    }
    const all = this.countAll.get() ?? 0;
    return p.include_expired === 1 ? all : all - (this.countExpiredRoots.get({ now_sec: p.now_sec as number }) ?? 0);
  }

  get(id: string): ConversationSummary | undefined {
    const r = this.one.get(id);
    return r && toConversationSummary(r);
  }
}
