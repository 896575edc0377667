// Ports: what the domain needs from the outside world, and where the daemon's two wings meet.
// Adapters implement the first kind; the daemon wires them. In-memory implementations for tests
// live in adapters/memory/. The front desk (API, CLI, client) reaches the engine only through
// the read port and the command port at the end of this file.

import type { Conversation, ConversationRow } from "./conversation-state.js";
import type { ActiveRun, DaemonStatus, DamageRecord, FinishedRun } from "./daemon-status.js";
import type { IndexReads } from "./read-model.js";
import type { LogRecord, NewRecord } from "./records.js";
import type { NostrEvent, UnsignedEvent } from "./types.js";

/** Milliseconds since the epoch. Injected so the domain never reads the clock itself. */
export interface Clock {
  now(): number;
}

/** The append-only log of every conversation: the source of truth. */
export interface ConversationLog {
  /**
   * Append records to a conversation's log. Resolves only once they are durable (fsync'd), with
   * the log's size in bytes after them; concurrent appends share one fsync (group commit).
   * `urgent` (src/log-urgency.ts): someone waits on these records; they need not wait behind a
   * flush already running for other conversations.
   */
  append(conversationId: string, records: readonly LogRecord[], urgent?: boolean): Promise<number>;
  /**
   * As `append`, resolving also with the records' lines as the log wrote them (UTF-8 JSON, joined
   * by "\n", no last newline): what the index's thread is sent in place of the records (IndexItem.lines).
   * A log that writes no lines leaves it out. `writing`, if given, is told when the lines are
   * being written (a log that cannot tell may never call it).
   */
  appendWithLines?(conversationId: string, records: readonly LogRecord[], urgent?: boolean, writing?: WritingNotice): Promise<{ end: number; lines: Uint8Array }>;
  /**
   * Records of one conversation in order, those with `n > afterN` (default: all). A torn last
   * line is repaired (cut off and kept aside), never returned; so is a damaged line anywhere
   * (set aside, reported and recorded): the records around it keep their positions, so the
   * positions then have a gap.
   */
  read(conversationId: string, afterN?: number): Promise<LogRecord[]>;
  /**
   * The whole log: its records (as `read`), where it ends, and how many damaged lines were set
   * aside since it was last read (by this read, or when its file was opened). Whoever derived
   * something from the old lines (the index) must derive it again when that is not 0.
   */
  readWhole(conversationId: string): Promise<WholeLog>;
  /** `n` of the last intact record (0 when empty or missing): cheap, reads only the tail. */
  lastPosition(conversationId: string): Promise<number>;
  /**
   * Where the log ends: `n` of its last intact record and its size in bytes up to the end of
   * that record's line (both 0 when empty or missing). Cheap like lastPosition; a torn last line
   * is repaired first.
   */
  end(conversationId: string): Promise<LogEnd>;
  /** Ids of every stored conversation (active and archived). */
  list(): Promise<{ id: string; archived: boolean }[]>;
  /**
   * The same, each with the size of its log as the directory reports it: no log is opened, read
   * or repaired (so a torn tail still counts). What recovery compares with the index.
   */
  sizes(): Promise<{ id: string; archived: boolean; bytes: number }[]>;
  /** Move a conversation's log to or from the archive. */
  setArchived(conversationId: string, archived: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface WholeLog {
  records: LogRecord[];
  end: LogEnd;
  setAside: number;
}

/** A position in a log: the `n` of a record and the size in bytes up to the end of its line. */
export interface LogEnd {
  n: number;
  bytes: number;
}

/** What the index holds of one conversation's log (see ConversationIndex.indexedLogs). */
export interface IndexedLog {
  /** Highest position indexed. */
  n: number;
  /** Where the log ended after the last records applied with a size; none if not recorded. */
  end?: LogEnd;
}

/**
 * Records of one conversation as the index applies them (src/index-item.ts builds it): plain
 * data taken from the conversation as of the last of these records, never the live aggregate,
 * which may already hold records that are not durable yet.
 */
export interface IndexItem {
  conversationId: string;
  /** In log order. */
  records: readonly LogRecord[];
  /** For each event record of `records`, in order: who it is for (lowercase, once, never its author). */
  recipients: readonly (readonly string[])[];
  /** The number of each turn a turn_start record of `records` opens, by turn id. */
  turnNumbers: Readonly<Record<string, number>>;
  /** The session of each agent a cursor record of `records` moves, by agent. */
  sessions: Readonly<Record<string, string>>;
  /** The conversation's row as of the last of these records. */
  row: ConversationRow;
  /** The log's size in bytes after the last of these records, when known (see `indexedLogs`). */
  logBytes?: number;
  /**
   * The conversation's rows are dropped before these records are applied: they are its whole log
   * (indexed again after damaged lines were set aside). Sent through the writer like any batch, so
   * the index keeps one writer while its thread runs.
   */
  replace?: boolean;
  /**
   * `records` as the log wrote them, when it says (ConversationLog.appendWithLines): one chunk per
   * append, in order, each its lines joined by "\n". The index's thread is sent these bytes and
   * parses them, as a rebuild from the log would, rather than a structured clone of the records.
   */
  lines?: readonly Uint8Array[];
}

/**
 * Where the index feeder sends its batches (daemon/engine/store/index-feeder.ts): the index's
 * own writer thread (adapters/sqlite-index/worker-index-writer.ts) or the calling thread.
 */
export interface IndexApplier {
  /**
   * One batch in one transaction, as ConversationIndex.applyBatch: on the calling thread it
   * returns (or throws) once committed; on another it returns a promise of that.
   */
  apply(items: readonly IndexItem[]): Promise<void> | void;
  /** True when `apply` runs on the calling thread: the feeder then spaces batches out. */
  readonly blocking: boolean;
  /**
   * Applies a batch in a transaction left open, for records not yet durable: `commit` makes it
   * visible once they are, `rollback` drops it if they never become so. At most one is held at a
   * time, and nothing else is sent meanwhile. Resolves once applied (rejects, the transaction
   * rolled back, if it could not be). Undefined when declined (e.g. only the index's own thread
   * holds one, and a small batch does not start it): the items then go by `apply`, once durable.
   */
  hold?(items: readonly IndexItem[]): Promise<void> | undefined;
  /** Commits the batch held; rejects if it was lost (its thread died) or SQLite refused. */
  commit?(): Promise<void>;
  /** Rolls back the batch held, if one is. */
  rollback?(): Promise<void>;
}

/**
 * Told, once the log knows where an append's lines will end, that they are being written: the
 * index may apply them then, in a transaction committed only once they are durable
 * (daemon/engine/store/index-feeder.ts). `lines` as in `appendWithLines`.
 */
export type WritingNotice = (end: number, lines: Uint8Array) => void;

/** Derived SQLite index: rebuildable from the logs at any time. */
export interface ConversationIndex {
  /**
   * Apply records already durable in the log, of many conversations at once, in one
   * transaction. Idempotent: re-applying changes nothing.
   */
  applyBatch(items: readonly IndexItem[]): void;
  /** Whether an event with this id is already stored (dedupe before paying for verification). */
  isProcessed(eventId: string): boolean;
  /** Those of `eventIds` already stored, in one lookup (a relay's slice of events). */
  processedAmong(eventIds: readonly string[]): Set<string>;
  /** Whether the daemon published this event itself (it is in the outbox, sent or not). */
  isPublishedHere(eventId: string): boolean;
  /** Highest log position indexed per conversation (to repair a missing tail at start). */
  indexedPositions(): Map<string, number>;
  /**
   * Every indexed conversation: its highest indexed position (as indexedPositions) and, when its
   * last records were applied with their size, where its log ended then. Written in the same
   * transaction as those records: a log still that size holds nothing the index lacks.
   */
  indexedLogs(): Map<string, IndexedLog>;
  /** Records where logs end (each end covering what the index already holds of its log). */
  setLogEnds(ends: ReadonlyMap<string, LogEnd>): void;
  /** Forget one conversation (before re-applying its whole log). */
  drop(conversationId: string): void;
  close(): void;
}

export interface RelayFilter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
  [tag: `#${string}`]: string[] | undefined;
}

export interface RelaySubscription {
  close(): void;
  /**
   * Resolves true once the relays (or the one `relay`) have answered the REQ with EOSE, so that
   * what they receive from now on is delivered live; false if `timeoutMs` passes first.
   */
  active(timeoutMs: number, relay?: string): Promise<boolean>;
}

/** How a stored-events query ended. */
export interface QueryEnd {
  /** True when the relay sent EOSE: it holds nothing else matching the filters. */
  complete: boolean;
  /** Why the query ended early (CLOSED, a dropped connection, the timeout). */
  reason?: string;
}

/** The relays, as the domain needs them. */
export interface RelayGateway {
  /**
   * Live subscription; `onEvent` gets every event with its relay url. `urgent`: events handed on
   * ahead of the others received before them (none of their conversation among those).
   */
  subscribe(filters: RelayFilter[], onEvent: (ev: NostrEvent, relay: string) => void, urgent?: (ev: NostrEvent) => boolean): RelaySubscription;
  /** One-shot fetch (resolves at EOSE from every relay or on timeout). */
  fetch(filters: RelayFilter[], timeoutMs?: number): Promise<NostrEvent[]>;
  /**
   * The events `relay` holds matching `filters`, streamed to `onEvent` as they arrive, unchecked
   * (the caller validates and verifies them). Resolves at EOSE or when the query ends early.
   */
  query(relay: string, filters: RelayFilter[], onEvent: (ev: unknown) => void, timeoutMs: number): Promise<QueryEnd>;
  /** Publish; resolves with the relays that accepted it (OK true). */
  publish(ev: NostrEvent): Promise<string[]>;
}

/** Signs events for one key. */
export interface Signer {
  readonly pubkey: string;
  sign(ev: UnsignedEvent): Promise<NostrEvent>;
}

/** Resolves `nostr:nevent…` / `naddr…` / `note…` references for context building. */
export interface EntityFetcher {
  /** The referenced event, or undefined when it cannot be had. Never throws. */
  fetch(bech32: string): Promise<NostrEvent | undefined>;
}

/** Verifies id and signature of an event. */
export interface EventVerifier {
  verify(ev: NostrEvent): boolean | Promise<boolean>;
}

/**
 * Events' JSON as the verifier's threads serialized them (`JSON.stringify` of the event, UTF-8),
 * handed to the log so that the main thread does not serialize each event a second time.
 * `take` gives an event's bytes once (undefined when there are none) and forgets them.
 */
export interface EventJsonSource {
  take(ev: NostrEvent): Uint8Array | undefined;
}

// --- where the front desk meets the engine ------------------------------------------------

/**
 * What the front desk reads: the index's queries and the conversations themselves, from the
 * running engine or, with no daemon running, from the files (read-only).
 */
export interface ReadPort {
  /** The index's read-only queries. */
  readonly index: IndexReads;
  /** A conversation's aggregate; undefined when there is none. */
  load(conversationId: string): Promise<Conversation | undefined>;
  now(): number;
  /** Resolves `nostr:` references in agent contexts (the daemon's relays; none without a daemon). */
  readonly entities?: EntityFetcher;
  /** The damage recorded in the logs and not cleared. */
  damage(): DamageRecord[];
  /**
   * Resolves once everything acknowledged so far is in the index (it is written after, on its
   * own thread): a read that waits for it sees every acknowledged event. Absent without a daemon.
   */
  indexed?(): Promise<void>;
  close(): void;
}

/**
 * What changed in the engine, as it happens: a conversation's row (new or changed), a message
 * once it is durable and indexed (acknowledged), an agent's run starting or ending.
 */
export type EngineChange =
  | { kind: "conversation"; id: string; title: string; phase: string; status: string; archived: boolean; messageCount: number }
  | { kind: "message"; conversationId: string; id: string; n: number; author: string; eventKind: number; createdAt: number }
  | { kind: "run"; state: "start" | "end"; run: ActiveRun | FinishedRun };

/** The running daemon's read port: the reads, its status, and its changes as they happen. */
export interface LiveReadPort extends ReadPort {
  status(): Promise<DaemonStatus>;
  /** Calls `listener` with every change until the returned function is called. */
  changes(listener: (change: EngineChange) => void): () => void;
}

/** The running engine, as the front desk reaches it. */
export interface EnginePorts {
  reads: LiveReadPort;
  commands: CommandPort;
}

/** What a decision taken in a conversation's queue commits, publishes and answers. */
export interface Decision<T> {
  records: readonly NewRecord[];
  /** An event to sign as `author` and take in right after the records. */
  publish?: { author: string; event: UnsignedEvent };
  result: T;
}

/** What the front desk asks the engine to do. Each answers once what it did is durable and indexed. */
export interface CommandPort {
  /**
   * Runs `decide` on the conversation, in its queue, and commits its records; when it publishes
   * an event, that event is signed and taken in right after them. NotFoundError when there is no
   * such conversation; PublishRefusedError (once the records are durable) when the event is
   * refused.
   */
  inConversation<T>(conversationId: string, decide: (conv: Conversation, now: number) => Decision<T>): Promise<{ result: T; published?: NostrEvent }>;
  /** Signs `event` as `author`, takes it in like any inbound event, hands it to the outbox. */
  publish(author: string, event: UnsignedEvent): Promise<NostrEvent>;
  /**
   * Stops the runs of `agent` (pubkey) under way at `by`'s request (a pubkey: the owner), those
   * on `conversationId` only when given: the program's process group is killed and each run is
   * recorded as stopped by `by`. Resolves with the runs it stopped (none: nothing ran).
   */
  stopRun(agent: string, by: string, conversationId?: string): Promise<ActiveRun[]>;
}
