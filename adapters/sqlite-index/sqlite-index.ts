// The derived SQLite index (docs/architecture.md): the ConversationIndex port plus the queries the
// daemon and the Director need. It can always be dropped and rebuilt from the logs.

import type Database from "better-sqlite3";
import type { ConversationIndex, IndexItem, IndexedLog, LogEnd } from "../../src/ports.js";
import { AuditQueries } from "./audit-queries.js";
import type { AuditEntry } from "../../src/read-model.js";
import { ConversationQueries, type ConversationFilter, type ConversationPage } from "./conversation-queries.js";
import type { MessageSummary } from "../../src/read-model.js";
import { schemaVersion } from "./migrate.js";
import { openDatabase } from "./open-database.js";
import { RelayMarks } from "./relay-marks.js";
import { StatsQueries } from "./stats-queries.js";
import type { IndexStats, StatsOptions } from "../../src/read-model.js";
import { UnreadQueries } from "./unread-queries.js";
import type { Inbox, InboxOptions, UnreadOptions, UnreadPage } from "../../src/read-model.js";
import { IndexWriter } from "./writer.js";
import type { UnsentEvent } from "./outbox-rows.js";
import type { PendingRun } from "./pending-runs.js";

const SELECT_INDEXED_POSITIONS = `SELECT id, last_n FROM conversations`;
const SELECT_OPEN_TURN_CONVERSATIONS = `SELECT DISTINCT conversation_id FROM turns WHERE status = 'open'`;

export interface SqliteIndexOptions {
  /** The index file (`.tenex/index.sqlite`); created when missing. */
  path: string;
}

export class SqliteIndex implements ConversationIndex {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly writer: IndexWriter;
  private readonly unread: UnreadQueries;
  private readonly conversations: ConversationQueries;
  private readonly audit: AuditQueries;
  private readonly statistics: StatsQueries;
  private readonly relays: RelayMarks;
  private readonly selectIndexedPositions;
  private readonly selectOpenTurnConversations;

  /** Throws IndexSchemaTooNewError or IndexCorruptError when the file must be rebuilt. */
  constructor(opts: SqliteIndexOptions) {
    this.path = opts.path;
    this.db = openDatabase(opts.path);
    this.writer = new IndexWriter(this.db);
    this.unread = new UnreadQueries(this.db);
    this.conversations = new ConversationQueries(this.db);
    this.audit = new AuditQueries(this.db);
    this.statistics = new StatsQueries(this.db);
    this.relays = new RelayMarks(this.db);
    this.selectIndexedPositions = this.db.prepare<[], { id: string; last_n: number }>(SELECT_INDEXED_POSITIONS);
    this.selectOpenTurnConversations = this.db.prepare<[], { conversation_id: string }>(SELECT_OPEN_TURN_CONVERSATIONS);
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  // --- ConversationIndex ---------------------------------------------------------------

  /** Many conversations' records in one transaction; re-applying records already indexed changes nothing. */
  applyBatch(items: readonly IndexItem[]): void {
    this.writer.applyBatch(items);
  }

  indexedPositions(): Map<string, number> {
    return new Map(this.selectIndexedPositions.all().map((r) => [r.id, r.last_n]));
  }

  indexedLogs(): Map<string, IndexedLog> {
    return this.writer.logEnds.indexed();
  }

  /** One transaction for all of them. */
  setLogEnds(ends: ReadonlyMap<string, LogEnd>): void {
    this.writer.setLogEnds(ends);
  }

  /** Locally published events no relay has accepted yet (the outbox to resend after a restart). */
  unsentEvents(): UnsentEvent[] {
    return this.writer.outbox.unsent();
  }

  /** Agent runs acknowledged and not done (after a crash: the ones to run again). */
  pendingRuns(): PendingRun[] {
    return this.writer.pendingRuns.all();
  }

  /** Conversations with an orchestrator turn still open (after a crash: the ones to time out). */
  openTurnConversations(): string[] {
    return this.selectOpenTurnConversations.all().map((r) => r.conversation_id);
  }

  drop(conversationId: string): void {
    this.writer.drop(conversationId);
  }

  /** Empties every table (relay marks and processed ids included), before a full rebuild. */
  resetAll(): void {
    this.writer.resetAll();
  }

  close(): void {
    if (!this.db.open) return;
    // Left in rollback-journal mode, the index can be read on a read-only file system: in WAL
    // mode even a read-only connection needs a -shm file, which cannot be created there. The
    // next read-write open turns WAL on again. Not when another connection has it open (busy):
    // then it stays as it is.
    try {
      this.db.pragma("busy_timeout = 0");
      this.db.pragma("journal_mode = DELETE");
    } catch {
      // still WAL: readable wherever its -shm can be made
    }
    this.db.close();
  }

  // --- queries ---------------------------------------------------------------------------

  unreadCount(agent: string, now: number, includeExpired = false): number {
    return this.unread.unreadCount(agent, now, includeExpired);
  }

  unreadList(agent: string, opts: UnreadOptions): UnreadPage<MessageSummary> {
    return this.unread.unreadList(agent, opts);
  }

  inbox(agent: string, opts: InboxOptions): Inbox {
    return this.unread.inbox(agent, opts);
  }

  listConversations(filter: ConversationFilter = {}): ConversationPage {
    return this.conversations.listConversations(filter);
  }

  auditTrail(conversationId: string): AuditEntry[] {
    return this.audit.auditTrail(conversationId);
  }

  stats(opts: StatsOptions): IndexStats {
    return this.statistics.stats(opts);
  }

  // --- catch-up ----------------------------------------------------------------------------

  getHighWater(relay: string): number | undefined {
    return this.relays.getHighWater(relay);
  }

  highWaterMarks(): Map<string, number> {
    return this.relays.highWaterMarks();
  }

  setHighWater(relay: string, createdAt: number): boolean {
    return this.relays.setHighWater(relay, createdAt);
  }

  isProcessed(eventId: string): boolean {
    return this.relays.isProcessed(eventId);
  }

  processedAmong(eventIds: readonly string[]): Set<string> {
    return this.relays.processedAmong(eventIds);
  }

  isPublishedHere(eventId: string): boolean {
    return this.writer.outbox.has(eventId);
  }

  markProcessed(eventId: string, conversationId?: string): void {
    this.relays.markProcessed(eventId, conversationId);
  }
}
