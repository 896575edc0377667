// Schema v5: what the dashboard's pages read at a million messages (docs/dashboard.md).
//  - conversations_by_recency: updated_at and, implicitly, the rowid after it; walked backwards
//    it is exactly the conversation list's order (updated_at DESC, rowid DESC), so a page stops
//    after its rows instead of sorting every conversation. The v1 index (updated_at DESC, id)
//    breaks ties by id, not by rowid, so it cannot serve that order.
//  - messages_expiring: only messages with an expiration, so the unfiltered list's total is the
//    number of conversations less those whose root has expired, without visiting each one.
//  - unread_by_rank: unread messages per (agent, priority rank), kept by the writer in the same
//    transaction as the recipient rows (as unread_totals is), so an agent's inbox depth by
//    priority is a few rows instead of a count over every unread index entry. Derived from the
//    v4 tables here, so a v4 index upgrades without a rebuild.

import type { Migration } from "./migration.js";

const UP = `
CREATE INDEX conversations_by_recency ON conversations (updated_at);
CREATE INDEX messages_expiring ON messages (expiration) WHERE expiration IS NOT NULL;

CREATE TABLE unread_by_rank (
  agent         TEXT NOT NULL,
  priority_rank INTEGER NOT NULL,
  unread        INTEGER NOT NULL,
  PRIMARY KEY (agent, priority_rank)
) WITHOUT ROWID;

INSERT INTO unread_by_rank (agent, priority_rank, unread)
  SELECT recipient, priority_rank, COUNT(*) FROM recipients WHERE unread = 1
  GROUP BY recipient, priority_rank;
`;

export const DASHBOARD_READS: Migration = { version: 5, name: "dashboard-reads", up: UP };
