// Human aliases (CONV-0001, MSG-H-0042) are the rowids the index gives conversations and
// messages as they are first indexed: increasing, in arrival order. They hold as long as the
// index rows do: a full `tenexd reindex` numbers again (in log-file order). The index is
// derived from the logs and must equal a rebuild, so it keeps no numbering of its own.
// Ids can also be given by a unique hex prefix, as with git.

import type Database from "better-sqlite3";
import type { AliasReads, MessageLocation } from "../../src/read-model.js";

const SELECT_CONVERSATION_SEQ = `SELECT rowid FROM conversations WHERE id = ?`;
const SELECT_CONVERSATION_BY_SEQ = `SELECT id FROM conversations WHERE rowid = ?`;
// Hex ids sort below "g": [prefix, prefix + "g") is every id that starts with the prefix.
const SELECT_CONVERSATIONS_BY_PREFIX = `SELECT id FROM conversations WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`;
const SELECT_MESSAGE = `SELECT rowid AS seq, conversation_id, n, priority FROM messages WHERE event_id = ?`;
const SELECT_MESSAGE_BY_SEQ = `SELECT event_id FROM messages WHERE rowid = ?`;
const SELECT_MESSAGES_BY_PREFIX = `SELECT event_id FROM messages WHERE event_id >= ? AND event_id < ? ORDER BY event_id LIMIT 2`;

export class AliasQueries implements AliasReads {
  private readonly conversationSeq;
  private readonly conversationBySeq;
  private readonly conversationsByPrefix;
  private readonly message;
  private readonly messageBySeq;
  private readonly messagesByPrefix;

  constructor(db: Database.Database) {
    this.conversationSeq = db.prepare<[string], number>(SELECT_CONVERSATION_SEQ).pluck();
    this.conversationBySeq = db.prepare<[number], string>(SELECT_CONVERSATION_BY_SEQ).pluck();
    this.conversationsByPrefix = db.prepare<[string, string], string>(SELECT_CONVERSATIONS_BY_PREFIX).pluck();
    this.message = db.prepare<[string], { seq: number; conversation_id: string; n: number; priority: string | null }>(SELECT_MESSAGE);
    this.messageBySeq = db.prepare<[number], string>(SELECT_MESSAGE_BY_SEQ).pluck();
    this.messagesByPrefix = db.prepare<[string, string], string>(SELECT_MESSAGES_BY_PREFIX).pluck();
  }

  conversationSeqOf(id: string): number | undefined {
    return this.conversationSeq.get(id);
  }

  conversationAt(seq: number): string | undefined {
    return this.conversationBySeq.get(seq);
  }

  conversationsStartingWith(prefix: string): string[] {
    return this.conversationsByPrefix.all(prefix, `${prefix}g`);
  }

  messageOf(eventId: string): MessageLocation | undefined {
    const r = this.message.get(eventId);
    return r && { seq: r.seq, conversationId: r.conversation_id, n: r.n, priority: r.priority };
  }

  messageAt(seq: number): string | undefined {
    return this.messageBySeq.get(seq);
  }

  messagesStartingWith(prefix: string): string[] {
    return this.messagesByPrefix.all(prefix, `${prefix}g`);
  }
}
