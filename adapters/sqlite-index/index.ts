// Public surface of the SQLite index adapter.
export { SqliteIndex, type SqliteIndexOptions } from "./sqlite-index.js";
export { IndexWriterError, WorkerIndexWriter } from "./worker-index-writer.js";
export { OnDemandIndexWriter, type OnDemandOptions } from "./on-demand-index-writer.js";
export { openIndexReadOnly, type IndexReader } from "./index-reader.js";
export {
  IndexCorruptError, IndexError, IndexMissingError, IndexSchemaTooNewError, IndexSchemaTooOldError,
} from "./errors.js";
export { PRIORITY_RANK } from "./message-row.js";
export { LATEST_VERSION, MIGRATIONS, type Migration } from "./migrations/index.js";
export type { AliasQueries } from "./alias-queries.js";
export type { ConversationFilter, ConversationPage } from "./conversation-queries.js";
export type { ViewRow } from "./view-queries.js";
