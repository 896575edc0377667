// Conversation search: filters that may each be absent, newest activity first, paginated,
// with the total. One statement per purpose: an absent filter binds NULL and drops out.

import type Database from "better-sqlite3";

const CONVERSATION_FILTER = `
      (@title IS NULL OR instr(c.title_folded, @title) > 0)
  AND (@phase IS NULL OR c.phase = @phase)
  AND (@status IS NULL OR c.status = @status)
  AND (@project IS NULL OR c.project = @project)
  AND (@archived IS NULL OR c.archived = @archived)
  AND (@from IS NULL OR c.updated_at >= @from)
  AND (@to IS NULL OR c.created_at <= @to)
  AND (@participant IS NULL OR EXISTS (
        SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.pubkey = @participant))`;
const SELECT_CONVERSATIONS = `
  SELECT c.id, c.project, c.title, c.phase, c.status, c.archived, c.root_kind, c.created_at, c.updated_at,
         c.message_count, c.last_n, c.last_message_at, c.exec_ms
  FROM conversations c WHERE ${CONVERSATION_FILTER}
  ORDER BY c.updated_at DESC, c.id
  LIMIT @limit OFFSET @offset`;
const COUNT_CONVERSATIONS = `SELECT COUNT(*) FROM conversations c WHERE ${CONVERSATION_FILTER}`;

export interface ConversationFilter {
  /** Substring of the title, case-insensitive. */
  title?: string;
  phase?: string;
  status?: string;
  /** Full project coordinate. */
  project?: string;
  archived?: boolean;
  /** Active during [from, to] (unix seconds): updated at or after `from`, created at or before `to`. */
  from?: number;
  to?: number;
  /** Pubkey that authored a message in it or was addressed by one. */
  participant?: string;
  limit?: number;
  offset?: number;
}

export interface ConversationSummary {
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
  lastN: number;
  /** Epoch ms at which the last message was logged. */
  lastMessageAt: number | null;
  execMs: number;
}

export interface ConversationPage {
  total: number;
  items: ConversationSummary[];
}

interface Row {
  id: string; project: string; title: string; phase: string; status: string; archived: number;
  root_kind: number | null; created_at: number; updated_at: number; message_count: number; last_n: number;
  last_message_at: number | null; exec_ms: number;
}

const toSummary = (r: Row): ConversationSummary => ({
  id: r.id, project: r.project, title: r.title, phase: r.phase, status: r.status, archived: r.archived === 1,
  rootKind: r.root_kind, createdAt: r.created_at, updatedAt: r.updated_at, messageCount: r.message_count,
  lastN: r.last_n, lastMessageAt: r.last_message_at, execMs: r.exec_ms,
});

function bindings(f: ConversationFilter): Record<string, string | number | null> {
  return {
    title: f.title !== undefined && f.title !== "" ? f.title.toLowerCase() : null,
    phase: f.phase ?? null,
    status: f.status ?? null,
    project: f.project ?? null,
    archived: f.archived === undefined ? null : f.archived ? 1 : 0,
    from: f.from ?? null,
    to: f.to ?? null,
    participant: f.participant ?? null,
  };
}

export class ConversationQueries {
  private readonly select;
  private readonly count;

  constructor(db: Database.Database) {
    this.select = db.prepare<Record<string, string | number | null>, Row>(SELECT_CONVERSATIONS);
    this.count = db.prepare<Record<string, string | number | null>, number>(COUNT_CONVERSATIONS).pluck();
  }

  listConversations(filter: ConversationFilter = {}): ConversationPage {
    const params = bindings(filter);
    const items = this.select.all({ ...params, limit: filter.limit ?? 50, offset: filter.offset ?? 0 }).map(toSummary);
    return { total: this.count.get(params) ?? 0, items };
  }
}
