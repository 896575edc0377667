// Every migration, in order. Append only: a released migration never changes.

import { INITIAL } from "./001-initial.js";
import { AGGREGATES } from "./002-aggregates.js";
import { OUTBOX } from "./003-outbox.js";
import { LOG_ENDS } from "./004-log-ends.js";
import { DASHBOARD_READS } from "./005-dashboard-reads.js";
import { MESSAGE_WORDS } from "./006-message-words.js";
import type { Migration } from "./migration.js";

export type { Migration } from "./migration.js";

export const MIGRATIONS: readonly Migration[] = [INITIAL, AGGREGATES, OUTBOX, LOG_ENDS, DASHBOARD_READS, MESSAGE_WORDS];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
