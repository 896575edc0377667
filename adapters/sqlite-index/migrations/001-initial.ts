// Schema v1: the index proper, one row per thing the logs hold. Every table is keyed by what
// makes a re-applied record a no-op: (conversation_id, n) for log records, event_id for events.
// Times: *_at columns holding Nostr times are unix seconds; `received_at`/`at` are epoch ms
// (the log's `at`).

import type { Migration } from "./migration.js";

const UP = `
CREATE TABLE conversations (
  id              TEXT PRIMARY KEY,
  project         TEXT NOT NULL,
  title           TEXT NOT NULL,
  -- title.toLowerCase(): SQLite folds only ASCII case, JavaScript folds Unicode.
  title_folded    TEXT NOT NULL,
  phase           TEXT NOT NULL,
  status          TEXT NOT NULL,
  archived        INTEGER NOT NULL,
  root_kind       INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  message_count   INTEGER NOT NULL,
  last_n          INTEGER NOT NULL,
  last_message_at INTEGER,
  exec_ms         INTEGER NOT NULL
);
CREATE INDEX conversations_by_update ON conversations (updated_at DESC, id);

CREATE TABLE messages (
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  event_id        TEXT NOT NULL UNIQUE,
  received_at     INTEGER NOT NULL,
  author          TEXT NOT NULL,
  kind            INTEGER NOT NULL,
  type            TEXT,
  priority        TEXT,
  priority_rank   INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  expiration      INTEGER,
  -- The root is the conversation (conversation_id): a reply is filed by its root.
  parent_id       TEXT,
  preview         TEXT NOT NULL,
  size            INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, n)
);
CREATE INDEX messages_by_time ON messages (created_at);

-- One row per (message, recipient). unread = 1 while the recipient has neither read past it
-- nor acked it; the partial indexes below hold only those rows, so they stay small.
CREATE TABLE recipients (
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  recipient       TEXT NOT NULL,
  priority_rank   INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  expiration      INTEGER,
  unread          INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, n, recipient)
) WITHOUT ROWID;
CREATE INDEX recipients_unread_order ON recipients
  (recipient, priority_rank, created_at, conversation_id, n, expiration) WHERE unread = 1;
CREATE INDEX recipients_unread_expiring ON recipients
  (recipient, expiration) WHERE unread = 1 AND expiration IS NOT NULL;

-- Authors and recipients of a conversation (the "participant" search filter).
CREATE TABLE participants (
  conversation_id TEXT NOT NULL,
  pubkey          TEXT NOT NULL,
  PRIMARY KEY (conversation_id, pubkey)
) WITHOUT ROWID;

-- Per-agent views: cursor (what it has seen), read mark (what it has read), claude session.
CREATE TABLE views (
  conversation_id TEXT NOT NULL,
  agent           TEXT NOT NULL,
  cursor_n        INTEGER NOT NULL,
  read_n          INTEGER NOT NULL,
  session         TEXT,
  PRIMARY KEY (conversation_id, agent)
) WITHOUT ROWID;

CREATE TABLE acks (
  agent           TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  PRIMARY KEY (agent, event_id)
) WITHOUT ROWID;
CREATE INDEX acks_by_conversation ON acks (conversation_id);

-- Accepted and refused phase changes, in log order.
CREATE TABLE phase_transitions (
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  from_phase      TEXT NOT NULL,
  to_phase        TEXT NOT NULL,
  by              TEXT NOT NULL,
  message         TEXT NOT NULL,
  reason          TEXT NOT NULL,
  event_id        TEXT,
  turn            INTEGER,
  refused         INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, n)
);

CREATE TABLE turns (
  conversation_id TEXT NOT NULL,
  turn_id         TEXT NOT NULL,
  number          INTEGER NOT NULL,
  phase           TEXT NOT NULL,
  agents          TEXT NOT NULL,
  reason          TEXT NOT NULL,
  started_n       INTEGER NOT NULL,
  started_at      INTEGER NOT NULL,
  deadline        INTEGER,
  status          TEXT NOT NULL,
  ended_n         INTEGER,
  ended_at        INTEGER,
  end_reason      TEXT,
  PRIMARY KEY (conversation_id, turn_id)
);

CREATE TABLE completions (
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  turn_id         TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  agent           TEXT NOT NULL,
  message         TEXT NOT NULL,
  PRIMARY KEY (conversation_id, n)
);

-- status records (open/closed/completed) and archive records (archived/unarchived).
CREATE TABLE status_changes (
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  status          TEXT NOT NULL,
  by              TEXT,
  reason          TEXT,
  PRIMARY KEY (conversation_id, n)
);

-- Catch-up: newest created_at seen per relay (back-fill starts there, minus an overlap).
CREATE TABLE relay_marks (
  relay           TEXT PRIMARY KEY,
  max_created_at  INTEGER NOT NULL
);

-- Events handled that are not conversation messages (those are in messages): dedup across
-- restarts for everything else the daemon saw.
CREATE TABLE processed (
  event_id        TEXT PRIMARY KEY,
  conversation_id TEXT
);
`;

export const INITIAL: Migration = { version: 1, name: "initial", up: UP };
