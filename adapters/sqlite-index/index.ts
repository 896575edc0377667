// Public surface of the SQLite index adapter.
export { SqliteIndex, type SqliteIndexOptions } from "./sqlite-index.js";
export { IndexCorruptError, IndexError, IndexSchemaTooNewError } from "./errors.js";
export { pTagRecipients, PRIORITY_RANK, type RecipientsOf } from "./message-row.js";
export { LATEST_VERSION, MIGRATIONS, type Migration } from "./migrations/index.js";
export type { AuditEntry } from "./audit-queries.js";
export type { ConversationFilter, ConversationPage, ConversationSummary } from "./conversation-queries.js";
export type { Summary } from "./histogram.js";
export type { IndexStats, StatsOptions } from "./stats-queries.js";
export type { Inbox, InboxConversation, InboxMessage, InboxOptions, UnreadMessage, UnreadOptions, UnreadPage } from "./unread-queries.js";
