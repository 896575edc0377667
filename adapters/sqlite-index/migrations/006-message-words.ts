// Schema v6: the words of each message's preview, for the Director's search at a million
// messages (docs/api.md, "Conversations"). A contentless FTS5 table (the preview is already in
// `messages`): it keeps only which rows hold which words (detail=none: no positions, which
// only phrase and NEAR queries need, and the search makes neither). Its rowid is the
// conversation's rowid times 2^32 plus the message's log position (message-words.ts), so the
// rows of one conversation are one rowid range: "does this conversation hold these words" is a
// single seek, and dropping a conversation deletes a range. contentless_delete: rows can be
// deleted without their text. Filled here from the v5 rows, so a v5 index upgrades in place.

import type { Migration } from "./migration.js";

const UP = `
CREATE VIRTUAL TABLE message_words USING fts5(
  preview, content = '', contentless_delete = 1, detail = none,
  tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO message_words (rowid, preview)
  SELECT c.rowid * 4294967296 + m.n, m.preview FROM messages m JOIN conversations c ON c.id = m.conversation_id;
`;

export const MESSAGE_WORDS: Migration = { version: 6, name: "message-words", up: UP };
