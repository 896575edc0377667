// Public surface of the SQLite index adapter.
export { SqliteIndex, type SqliteIndexOptions } from "./sqlite-index.js";
export { openIndexReadOnly, type IndexReader } from "./index-reader.js";
export {
  IndexCorruptError, IndexError, IndexMissingError, IndexSchemaTooNewError, IndexSchemaTooOldError,
} from "./errors.js";
export { PRIORITY_RANK } from "./message-row.js";
export { LATEST_VERSION, MIGRATIONS, type Migration } from "./migrations/index.js";
export type { AliasQueries, MessageLocation } from "./alias-queries.js";
export type { AuditEntry } from "./audit-queries.js";
export type { ConversationFilter, ConversationPage } from "./conversation-queries.js";
export type { ConversationSearchQuery } from "./conversation-search.js";
export type { ConversationSummary } from "./conversation-summary.js";
export type { DirectCandidate } from "./direct-queries.js";
export type { Summary } from "./histogram.js";
export type { MessageOrder, MessageQuery } from "./message-queries.js";
export type { MessageSummary } from "./message-summary.js";
export type { IndexStats, StatsOptions } from "./stats-queries.js";
export type { Inbox, InboxConversation, InboxMessage, InboxOptions, UnreadOptions, UnreadPage } from "./unread-queries.js";
export type { ViewRow } from "./view-queries.js";
