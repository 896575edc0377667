// A read-only connection to the SQLite index: the Director's and the agents' queries run here,
// in the daemon (beside its writer connection: WAL lets readers and the writer go on together)
// and in the CLI when no daemon runs (then nothing may write: the file is opened read-only).

import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { LATEST_VERSION } from "../../adapters/sqlite-index/index.js";
import { AuditQueries } from "../../adapters/sqlite-index/audit-queries.js";
import { StatsQueries } from "../../adapters/sqlite-index/stats-queries.js";
import { UnreadQueries } from "../../adapters/sqlite-index/unread-queries.js";
import { AliasQueries } from "./alias-queries.js";
import { ConversationListQueries } from "./conversation-list-queries.js";
import { DirectQueries } from "./direct-queries.js";
import { IndexUnavailableError } from "./errors.js";
import { MessageQueries } from "./message-queries.js";
import { ViewQueries } from "./view-queries.js";

export class IndexReader {
  private readonly db: Database.Database;
  readonly unread: UnreadQueries;
  readonly audit: AuditQueries;
  readonly stats: StatsQueries;
  readonly aliases: AliasQueries;
  readonly conversations: ConversationListQueries;
  readonly messages: MessageQueries;
  readonly views: ViewQueries;
  readonly direct: DirectQueries;

  /** Throws IndexUnavailableError when there is no usable index at `path`. */
  constructor(readonly path: string) {
    if (!existsSync(path)) {
      throw new IndexUnavailableError(`no index at ${path}: start the daemon once, or run \`tenexd reindex\``);
    }
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      this.checkVersion();
      this.unread = new UnreadQueries(this.db);
      this.audit = new AuditQueries(this.db);
      this.stats = new StatsQueries(this.db);
      this.aliases = new AliasQueries(this.db);
      this.conversations = new ConversationListQueries(this.db);
      this.messages = new MessageQueries(this.db);
      this.views = new ViewQueries(this.db);
      this.direct = new DirectQueries(this.db);
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  private checkVersion(): void {
    const version = this.db.pragma("user_version", { simple: true }) as number;
    if (version === LATEST_VERSION) return;
    const fix = version < LATEST_VERSION ? "start the daemon once (it migrates the index)" : "use the tenexd that wrote it";
    throw new IndexUnavailableError(`index ${this.path} has schema version ${version}, this tenexd reads ${LATEST_VERSION}: ${fix}, or run \`tenexd reindex\``);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
