// Schema v4: where each conversation's log ended when the index last applied it. Written in the
// same transaction as the records it covers, so after a crash the start compares it with each
// log's size (a stat, no read) and opens only the logs that changed. A conversation without a
// row here (indexes from before v4, records applied without a size) is checked the old way, by
// its last position, and gets its row then.

import type { Migration } from "./migration.js";

const UP = `
CREATE TABLE log_ends (
  conversation_id TEXT PRIMARY KEY,
  -- n of the last record in the log's first \`bytes\` bytes (whole lines only).
  n               INTEGER NOT NULL,
  bytes           INTEGER NOT NULL
) WITHOUT ROWID;
`;

export const LOG_ENDS: Migration = { version: 4, name: "log-ends", up: UP };
