// Schema v2: aggregates maintained on apply, so unread counts and stats cost the same at a
// million messages as at ten. Each is derivable from the v1 tables, and the migration does
// exactly that, so a v1 index upgrades without a rebuild.

import type { Migration } from "./migration.js";

const UP = `
-- Unread messages per (agent, conversation); rows at zero are deleted.
CREATE TABLE unread_counts (
  agent           TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  unread          INTEGER NOT NULL,
  PRIMARY KEY (agent, conversation_id)
) WITHOUT ROWID;
CREATE INDEX unread_counts_by_conversation ON unread_counts (conversation_id);

-- The same summed per agent: one agent's unread count is a single row.
CREATE TABLE unread_totals (
  agent  TEXT PRIMARY KEY,
  unread INTEGER NOT NULL
) WITHOUT ROWID;

-- Messages per hour of created_at (hour = created_at / 3600).
CREATE TABLE volume_hourly (
  hour     INTEGER PRIMARY KEY,
  messages INTEGER NOT NULL
);

CREATE TABLE author_counts (
  author   TEXT PRIMARY KEY,
  messages INTEGER NOT NULL
) WITHOUT ROWID;

-- Messages to an agent that the agent has not yet answered in that conversation.
CREATE TABLE awaiting_reply (
  conversation_id TEXT NOT NULL,
  agent           TEXT NOT NULL,
  n               INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, agent, n)
) WITHOUT ROWID;

-- Seconds from a message to an agent until that agent's next message in the conversation,
-- as a histogram per agent: medians without sorting every response.
CREATE TABLE response_histogram (
  agent     TEXT NOT NULL,
  seconds   INTEGER NOT NULL,
  responses INTEGER NOT NULL,
  PRIMARY KEY (agent, seconds)
) WITHOUT ROWID;

INSERT INTO unread_counts (agent, conversation_id, unread)
  SELECT recipient, conversation_id, COUNT(*) FROM recipients WHERE unread = 1
  GROUP BY recipient, conversation_id;

INSERT INTO unread_totals (agent, unread)
  SELECT agent, SUM(unread) FROM unread_counts GROUP BY agent;

INSERT INTO volume_hourly (hour, messages)
  SELECT created_at / 3600, COUNT(*) FROM messages GROUP BY created_at / 3600;

INSERT INTO author_counts (author, messages)
  SELECT author, COUNT(*) FROM messages GROUP BY author;

CREATE TEMP TABLE backfill_replies AS
  SELECT r.conversation_id, r.recipient AS agent, r.n, r.created_at,
    (SELECT m.created_at FROM messages m
      WHERE m.conversation_id = r.conversation_id AND m.author = r.recipient AND m.n > r.n
      ORDER BY m.n LIMIT 1) AS reply_at
  FROM recipients r;
INSERT INTO awaiting_reply (conversation_id, agent, n, created_at)
  SELECT conversation_id, agent, n, created_at FROM backfill_replies WHERE reply_at IS NULL;
INSERT INTO response_histogram (agent, seconds, responses)
  SELECT agent, MAX(0, reply_at - created_at), COUNT(*) FROM backfill_replies
  WHERE reply_at IS NOT NULL GROUP BY 1, 2;
DROP TABLE backfill_replies;
`;

export const AGGREGATES: Migration = { version: 2, name: "aggregates", up: UP };
