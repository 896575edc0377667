// Schema v3: the daemon's unfinished work. `outbox`: events the daemon published itself are
// durable in their logs before they go out; this says which no relay has accepted yet.
// `pending_runs`: agent runs due on an acknowledged trigger and not yet recorded as run. A
// restart resends and re-runs exactly those without reading every log. Earlier versions had
// neither local events nor runs to carry over.

import type { Migration } from "./migration.js";

const UP = `
CREATE TABLE outbox (
  event_id        TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  n               INTEGER NOT NULL,
  -- Log position of the first 'sent' record: NULL while no relay has accepted the event.
  sent_n          INTEGER
) WITHOUT ROWID;
CREATE INDEX outbox_unsent ON outbox (conversation_id) WHERE sent_n IS NULL;

CREATE TABLE pending_runs (
  conversation_id TEXT NOT NULL,
  agent           TEXT NOT NULL,
  trigger_id      TEXT NOT NULL,
  n               INTEGER NOT NULL,
  PRIMARY KEY (agent, trigger_id)
) WITHOUT ROWID;
CREATE INDEX pending_runs_by_conversation ON pending_runs (conversation_id);
`;

export const OUTBOX: Migration = { version: 3, name: "outbox-and-pending-runs", up: UP };
