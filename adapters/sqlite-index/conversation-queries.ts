// Conversation search: filters that may each be absent, newest activity first, paginated,
// with the total. One statement per purpose: an absent filter binds NULL and drops out.

import type Database from "better-sqlite3";
import { CONVERSATION_SUMMARY_COLUMNS, toConversationSummary, type ConversationSummaryRow } from "./conversation-summary.js";
import type { ConversationSummary } from "../../src/read-model.js";

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
  SELECT ${CONVERSATION_SUMMARY_COLUMNS}
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

export interface ConversationPage {
  total: number;
  items: ConversationSummary[];
}

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
    this.select = db.prepare<Record<string, string | number | null>, ConversationSummaryRow>(SELECT_CONVERSATIONS);
    this.count = db.prepare<Record<string, string | number | null>, number>(COUNT_CONVERSATIONS).pluck();
  }

  listConversations(filter: ConversationFilter = {}): ConversationPage {
    const params = bindings(filter);
    const items = this.select.all({ ...params, limit: filter.limit ?? 50, offset: filter.offset ?? 0 }).map(toConversationSummary);
    return { total: this.count.get(params) ?? 0, items };
  }
}
