// The search's word index (schema v6, migrations/006-message-words.ts): one FTS5 row per
// message, its preview's words, keyed by wordsKey. Written in the writer's transaction, after
// the conversation's row (its rowid is the key's upper half), so the words of a message are
// there exactly when its row is; a message's preview never changes, so it is indexed once.

import type Database from "better-sqlite3";

const CONVERSATION_SPAN = 4294967296n;

/** SQL: the first key of conversation `rowid`'s range (an SQL expression of it). */
export const wordsKeyFrom = (rowid: string): string => `(${rowid} * 4294967296)`;
/** SQL: the last key of that range. */
export const wordsKeyTo = (rowid: string): string => `(${rowid} * 4294967296 + 4294967295)`;
/** SQL: the conversation rowid of a key. */
export const conversationOfKey = (key: string): string => `(${key} >> 32)`;

const SELECT_CONVERSATION_ROWID = `SELECT rowid FROM conversations WHERE id = ?`;
const INSERT_WORDS = `INSERT INTO message_words (rowid, preview) VALUES (?, ?)`;
const DELETE_CONVERSATION_WORDS = `DELETE FROM message_words WHERE rowid BETWEEN ? AND ?`;
// FTS5's own command: empties a contentless table without visiting its rows.
const DELETE_ALL_WORDS = `INSERT INTO message_words (message_words) VALUES ('delete-all')`;

export interface NewMessage { n: number; preview: string }

export class MessageWords {
  private readonly rowidOf;
  private readonly insert;
  private readonly deleteRange;
  private readonly deleteAll;

  constructor(db: Database.Database) {
    this.rowidOf = db.prepare<[string], bigint>(SELECT_CONVERSATION_ROWID).pluck().safeIntegers();
    this.insert = db.prepare<[bigint, string]>(INSERT_WORDS);
    this.deleteRange = db.prepare<[bigint, bigint]>(DELETE_CONVERSATION_WORDS);
    this.deleteAll = db.prepare(DELETE_ALL_WORDS);
  }

  /** After the conversation's row is written: the words of its messages inserted in this batch. */
  add(conversationId: string, messages: readonly NewMessage[]): void {
    if (messages.length === 0) return;
    const base = this.base(conversationId);
    if (base === undefined) return;
    for (const m of messages) this.insert.run(base + BigInt(m.n), m.preview);
  }

  /** Before the conversation's row is deleted. */
  drop(conversationId: string): void {
    const base = this.base(conversationId);
    if (base !== undefined) this.deleteRange.run(base, base + CONVERSATION_SPAN - 1n);
  }

  reset(): void {
    this.deleteAll.run();
  }

  private base(conversationId: string): bigint | undefined {
    const rowid = this.rowidOf.get(conversationId);
    return rowid === undefined ? undefined : rowid * CONVERSATION_SPAN;
  }
}
