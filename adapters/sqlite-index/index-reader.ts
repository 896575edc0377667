// The index's queries on a read-only connection: what the Director and the agents read, in
// the daemon (beside its writer connection: WAL lets readers and the writer go on together) and
// in the CLI when no daemon runs (then nothing may write). Each statement is prepared once, here.

import type Database from "better-sqlite3";
import type { IndexReads } from "../../src/read-model.js";
import { AliasQueries } from "./alias-queries.js";
import { AuditQueries } from "./audit-queries.js";
import { ConversationSearch } from "./conversation-search.js";
import { DirectQueries } from "./direct-queries.js";
import { MessageQueries } from "./message-queries.js";
import { openReadOnlyDatabase } from "./open-database.js";
import { StatsQueries } from "./stats-queries.js";
import { UnreadQueries } from "./unread-queries.js";
import { ViewQueries } from "./view-queries.js";

export class IndexReader implements IndexReads {
  readonly unread: UnreadQueries;
  readonly audit: AuditQueries;
  readonly stats: StatsQueries;
  readonly aliases: AliasQueries;
  readonly conversations: ConversationSearch;
  readonly messages: MessageQueries;
  readonly views: ViewQueries;
  readonly direct: DirectQueries;

  constructor(private readonly db: Database.Database, readonly path: string) {
    this.unread = new UnreadQueries(db);
    this.audit = new AuditQueries(db);
    this.stats = new StatsQueries(db);
    this.aliases = new AliasQueries(db);
    this.conversations = new ConversationSearch(db);
    this.messages = new MessageQueries(db);
    this.views = new ViewQueries(db);
    this.direct = new DirectQueries(db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * The index at `path`, read-only: never created, migrated or written. Throws IndexMissingError,
 * IndexSchemaTooOldError, IndexSchemaTooNewError or IndexCorruptError when it cannot be read.
 */
export function openIndexReadOnly(path: string): IndexReader {
  const db = openReadOnlyDatabase(path);
  try {
    return new IndexReader(db, path);
  } catch (err) {
    db.close();
    throw err;
  }
}
