// Conversations for the Director: search (title or message text), filters, newest activity
// first, paginated with the total, each with its alias. A conversation whose root has expired
// (NIP-40) is hidden unless asked for. An absent filter binds NULL and drops out.

import type Database from "better-sqlite3";

const COLUMNS = `
  c.rowid AS seq, c.id, c.project, c.title, c.phase, c.status, c.archived, c.root_kind, c.created_at,
  c.updated_at, c.message_count, c.last_message_at, c.exec_ms`;
// SQLite's lower() folds ASCII only: a search for "é" still finds "é", not "É" (previews only;
// titles are folded by JavaScript when indexed).
const FILTER = `
      (@q IS NULL OR instr(c.title_folded, @q) > 0 OR EXISTS (
        SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND instr(lower(m.preview), @q) > 0
          AND (@include_expired = 1 OR m.expiration IS NULL OR m.expiration > @now_sec)))
  AND (@phase IS NULL OR c.phase = @phase)
  AND (@status IS NULL OR c.status = @status)
  AND (@archived IS NULL OR c.archived = @archived)
  AND (@participant IS NULL OR EXISTS (
        SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.pubkey = @participant))
  AND (@include_expired = 1 OR NOT EXISTS (
        SELECT 1 FROM messages r WHERE r.event_id = c.id AND r.expiration IS NOT NULL AND r.expiration <= @now_sec))`;
const FROM = `FROM conversations c`;
const SELECT_PAGE = `SELECT ${COLUMNS} ${FROM} WHERE ${FILTER}
  ORDER BY c.updated_at DESC, c.rowid DESC LIMIT @limit OFFSET @offset`;
const COUNT_PAGE = `SELECT COUNT(*) FROM conversations c WHERE ${FILTER}`;
const SELECT_ONE = `SELECT ${COLUMNS} ${FROM} WHERE c.id = ?`;

export interface ConversationQuery {
  /** Substring of the title or of a message (its first 160 characters), case-insensitive. */
  q?: string;
  phase?: string;
  status?: string;
  archived?: boolean;
  participant?: string;
  includeExpired?: boolean;
  /** Epoch ms. */
  now: number;
  limit: number;
  offset: number;
}

export interface ConversationRow {
  seq: number;
  id: string;
  project: string;
  title: string;
  phase: string;
  status: string;
  archived: boolean;
  rootKind: number | null;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** Epoch ms. */
  lastMessageAt: number | null;
  execMs: number;
}

interface Row {
  seq: number; id: string; project: string; title: string; phase: string; status: string; archived: number;
  root_kind: number | null; created_at: number; updated_at: number; message_count: number;
  last_message_at: number | null; exec_ms: number;
}

const toRow = (r: Row): ConversationRow => ({
  seq: r.seq, id: r.id, project: r.project, title: r.title, phase: r.phase, status: r.status,
  archived: r.archived === 1, rootKind: r.root_kind, createdAt: r.created_at, updatedAt: r.updated_at,
  messageCount: r.message_count, lastMessageAt: r.last_message_at, execMs: r.exec_ms,
});

type Params = Record<string, string | number | null>;

function bindings(f: ConversationQuery): Params {
  return {
    q: f.q !== undefined && f.q.trim() !== "" ? f.q.trim().toLowerCase() : null,
    phase: f.phase ?? null,
    status: f.status ?? null,
    archived: f.archived === undefined ? null : f.archived ? 1 : 0,
    participant: f.participant ?? null,
    include_expired: f.includeExpired ? 1 : 0,
    now_sec: Math.floor(f.now / 1000),
  };
}

export class ConversationListQueries {
  private readonly page;
  private readonly count;
  private readonly one;

  constructor(db: Database.Database) {
    this.page = db.prepare<Params, Row>(SELECT_PAGE);
    this.count = db.prepare<Params, number>(COUNT_PAGE).pluck();
    this.one = db.prepare<[string], Row>(SELECT_ONE);
  }

  list(f: ConversationQuery): { total: number; items: ConversationRow[] } {
    const params = bindings(f);
    const items = this.page.all({ ...params, limit: f.limit, offset: f.offset }).map(toRow);
    return { total: this.count.get(params) ?? 0, items };
  }

  get(id: string): ConversationRow | undefined {
    const r = this.one.get(id);
    return r && toRow(r);
  }
}
