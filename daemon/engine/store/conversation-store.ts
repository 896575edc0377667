// The daemon's access to conversations: lazy loading from the log (the truth), a bounded cache
// of live aggregates, and the commit path. A commit folds records into the aggregate at once
// (so the next event of the same conversation sees them) and resolves its `durable` promise
// only when the log has fsync'd them; the index commits them after that, never before (it may
// apply them while they are written: index-feeder.ts).

import type { Conversation } from "../../../src/conversation-state.js";
import { applyRecords, emptyConversation, replay } from "../../../src/conversation-reducer.js";
import { stamp } from "../../../src/conversation.js";
import { indexItem } from "../../../src/index-item.js";
import { isUrgent } from "../../../src/log-urgency.js";
import { eventMemoryBytes } from "../../../src/memory-estimate.js";
import { pTagRecipients, type RecipientsOf } from "../../../src/messaging/recipients.js";
import { currentTurn } from "../../../src/turns.js";
import type { ConversationIndex, ConversationLog, IndexApplier, IndexItem } from "../../../src/ports.js";
import type { LogRecord, NewRecord } from "../../../src/records.js";
import { ConversationCache } from "./conversation-cache.js";
import { IndexFeeder, inlineApplier } from "./index-feeder.js";

const RECENT_IDS = 100_000;
/** As limits.cacheBytes' default (daemon/config/config-schema.ts). */
const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

export interface StoreOptions {
  log: ConversationLog;
  index: ConversationIndex;
  /**
   * Where the index's batches are written: the daemon's is the index's own thread
   * (adapters/sqlite-index/worker-index-writer.ts); default: `index.applyBatch`, on this thread.
   */
  applier?: IndexApplier;
  /** Who a message is for, as the index stores it (default: its `p` tags; the daemon's: src/messaging/recipients.ts). */
  recipientsOf?: RecipientsOf;
  /** Upper bound on the memory cached conversations hold, in bytes (approximate: src/memory-estimate.ts). */
  maxCachedBytes?: number;
  /** Work queued on a conversation pins it in the cache. */
  isBusy?: (id: string) => boolean;
  /** The index is derived: a failure there is reported, never fatal (it is repaired at start). */
  onIndexError?: (err: unknown, conversationId: string) => void;
  /** Told what each index apply made visible (the live feed). */
  onIndexed?: (items: readonly IndexItem[]) => void;
  /**
   * Records to commit when a conversation is loaded from its log, e.g. closing an execution
   * session a crash left open. Recovery is lazy: memory and start time stay bounded.
   */
  onLoad?: (conv: Conversation) => NewRecord[];
  onLoadError?: (err: unknown, conversationId: string) => void;
  /** Records made durable (the conversation's metadata publisher reads them). */
  onDurable?: (conv: Conversation, records: readonly LogRecord[]) => void;
}

export interface Commit {
  records: LogRecord[];
  /** Resolves once the records are durable in the log. */
  durable: Promise<void>;
}

export class ConversationStore {
  private readonly cache: ConversationCache;
  private readonly feeder: IndexFeeder;
  private readonly loading = new Map<string, Promise<Conversation | undefined>>();
  private readonly known = new Set<string>();
  /**
   * Ids of events committed recently, indexed or not yet, with their origin: with the index, what
   * `hasEvent` and `publishedHere` answer from. Bounded: older ids are found in the index.
   */
  private readonly recent = new Map<string, "relay" | "local">();
  /** Conversations with an open orchestrator turn: the ones a timeout loop must look at. */
  private readonly openTurns = new Set<string>();
  /** Conversations kept in memory while work on them runs outside their queue (see `pin`). */
  private readonly pinned = new Map<string, number>();

  private readonly recipientsOf: RecipientsOf;

  constructor(private readonly opts: StoreOptions) {
    this.recipientsOf = opts.recipientsOf ?? pTagRecipients;
    const isBusy = opts.isBusy ?? (() => false);
    this.cache = new ConversationCache(opts.maxCachedBytes ?? DEFAULT_CACHE_BYTES, (id) => this.pinned.has(id) || isBusy(id));
    this.feeder = new IndexFeeder(opts.applier ?? inlineApplier(opts.index), (err, ids) => opts.onIndexError?.(err, ids.join(",")), opts.onIndexed);
  }

  /**
   * Ids of every stored conversation, listed once at start, and those with a turn left open
   * (the timeout loop loads them when it looks).
   */
  async init(openTurns: readonly string[] = []): Promise<void> {
    for (const { id } of await this.opts.log.list()) this.known.add(id);
    for (const id of openTurns) if (this.known.has(id)) this.openTurns.add(id);
  }

  has(id: string): boolean {
    return this.known.has(id) || this.cache.get(id) !== undefined;
  }

  /** The conversation, loaded from its log if it is not in memory; undefined if none exists. */
  async get(id: string): Promise<Conversation | undefined> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    if (!this.known.has(id)) return undefined;
    let p = this.loading.get(id);
    if (!p) {
      p = this.load(id).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  /** The conversation if it is in memory (no read, no promise: the route asks this for every event). */
  loaded(id: string): Conversation | undefined {
    return this.cache.get(id);
  }

  /** The conversation, or a new empty one (not stored until its first commit). */
  async getOrCreate(id: string, project: string): Promise<Conversation> {
    return this.loadedOrCreated(id, project) ?? this.createdAfterLoad(id, project);
  }

  /**
   * The conversation in memory, or a new empty one when none is stored; undefined when it is
   * stored and must be read first (getOrCreate).
   */
  loadedOrCreated(id: string, project: string): Conversation | undefined {
    const cached = this.cache.get(id);
    if (cached) return cached;
    if (this.known.has(id)) return undefined;
    return this.created(id, project);
  }

  // Callers waiting for the same read (its log was empty: a crash left the file without a line)
  // all get the aggregate the first of them created: a second, also empty, would number its
  // records from 1 again, and the log would refuse them (n=1 does not follow n=1).
  private async createdAfterLoad(id: string, project: string): Promise<Conversation> {
    return (await this.get(id)) ?? this.cache.get(id) ?? this.created(id, project);
  }

  private created(id: string, project: string): Conversation {
    const conv = emptyConversation(id, project);
    this.cache.set(conv);
    return conv;
  }

  /**
   * Keeps `id` in memory until as many `unpin`s: an agent's command runs outside the
   * conversation's queue, with an execution-time session open. Evicted meanwhile and loaded
   * again, the conversation would look like a crash had left that session open, and loading
   * closes such a session at its last heartbeat.
   */
  pin(id: string): void {
    this.pinned.set(id, (this.pinned.get(id) ?? 0) + 1);
  }

  unpin(id: string): void {
    const left = (this.pinned.get(id) ?? 0) - 1;
    if (left > 0) this.pinned.set(id, left);
    else this.pinned.delete(id);
  }

  /**
   * Whether the event is already stored or being stored (a duplicate needs no verification).
   * `conversationId`: the conversation the event's own tags name, if known. An event can only be
   * stored there (its id covers its tags), so a conversation we hold nothing of answers "no",
   * and a cached one (it holds all its events) answers alone: the index lookup (two B-tree
   * probes, 5-18 µs) is left for events of conversations stored but not in memory.
   */
  hasEvent(id: string, conversationId?: string): boolean {
    return this.heldInMemory(id, conversationId) ?? this.opts.index.isProcessed(id);
  }

  /**
   * As hasEvent for many events (their ids and conversations, side by side; an undefined id is
   * passed over), those of them held; the index asked once for all it must answer.
   */
  heldAmong(ids: readonly (string | undefined)[], conversationIds: readonly (string | undefined)[]): Set<string> {
    const held = new Set<string>();
    let ask: string[] | undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (id === undefined) continue;
      const known = this.heldInMemory(id, conversationIds[i]);
      if (known === undefined) (ask ??= []).push(id);
      else if (known) held.add(id);
    }
    if (ask) for (const id of this.opts.index.processedAmong(ask)) held.add(id);
    return held;
  }

  /** hasEvent's answer from memory; undefined when the index must answer. */
  private heldInMemory(id: string, conversationId: string | undefined): boolean | undefined {
    if (this.recent.has(id)) return true;
    if (conversationId === undefined) return undefined;
    if (!this.has(conversationId)) return false;
    const conv = this.cache.peek(conversationId);
    return conv ? conv.eventsById.has(id) : undefined;
  }

  /** Whether a stored event was published by this daemon (a relay sending it back echoes it). */
  publishedHere(id: string, conversationId?: string): boolean {
    const origin = this.recent.get(id) ?? (conversationId !== undefined ? this.cache.peek(conversationId)?.eventsById.get(id)?.origin : undefined);
    return origin !== undefined ? origin === "local" : this.opts.index.isPublishedHere(id);
  }

  commit(conv: Conversation, records: readonly NewRecord[]): Commit {
    if (records.length === 0) return { records: [], durable: Promise.resolve() };
    const before = conv.events.length;
    const stamped = stamp(conv, records);
    applyRecords(conv, stamped);
    // What the index gets of these records, as of them: by the time they are durable the
    // aggregate may be further on.
    const item = indexItem(conv, stamped, this.recipientsOf);
    const ids: string[] = [];
    let bytes = 0;
    for (const r of stamped) {
      if (r.t !== "event") continue;
      ids.push(r.ev.id);
      bytes += eventMemoryBytes(r.ev);
      this.remember(r.ev.id, r.origin);
    }
    this.known.add(conv.id);
    this.cache.grew(conv.id, conv.events.length - before, bytes);
    this.noteTurns(conv);
    const { log } = this.opts;
    const urgent = isUrgent(stamped);
    // With the lines the log wrote, the index's thread is sent bytes rather than the records; told
    // when a flush writes them, it applies them meanwhile and commits once they are durable
    // (index-feeder.ts). Not an urgent append's: it goes by a flush of its own, beside the others.
    const writing = urgent ? undefined : (end: number, lines: Uint8Array) => this.feeder.writing(item, end, lines);
    const appended = log.appendWithLines ? log.appendWithLines(conv.id, stamped, urgent, writing) : log.append(conv.id, stamped, urgent);
    const durable = appended.then(
      (done) => {
        if (typeof done === "number") this.feeder.add(item, done);
        else this.feeder.add(item, done.end, done.lines);
        this.opts.onDurable?.(conv, stamped);
      },
      (err: unknown) => {
        this.feeder.lost(item);
        // The aggregate is now ahead of the truth: drop it so the next access reloads the log,
        // and forget the ids so the events are taken again when they come again.
        this.cache.delete(conv.id);
        for (const id of ids) this.recent.delete(id);
        throw err;
      },
    );
    return { records: stamped, durable };
  }

  private remember(id: string, origin: "relay" | "local"): void {
    this.recent.set(id, origin);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.keys().next().value!);
  }

  openTurnConversations(): string[] {
    return [...this.openTurns];
  }

  private noteTurns(conv: Conversation): void {
    if (currentTurn(conv.turns)) this.openTurns.add(conv.id);
    else this.openTurns.delete(conv.id);
  }

  stats() {
    return { cachedConversations: this.cache.size, cachedEvents: this.cache.heldEvents, cachedBytes: this.cache.heldBytes, known: this.known.size };
  }

  /** Resolves once every durable record so far is in the index. */
  indexed(): Promise<void> {
    return this.feeder.idle();
  }

  /**
   * Drops the aggregate from memory (damaged lines of its log were set aside): the next access
   * loads what the log holds now. Work already holding it finishes on it.
   */
  forget(id: string): void {
    this.cache.delete(id);
  }

  private async load(id: string): Promise<Conversation | undefined> {
    const { records, end, setAside } = await this.opts.log.readWhole(id);
    if (records.length === 0) return undefined;
    const conv = replay(id, records);
    // Lines were set aside: the index still holds what they said. It is derived, so it is
    // derived again, whole, from what the log holds now: through the feeder, after what it was
    // being fed, by the index's one writer (its thread's, while that runs: written here, the drop
    // would wait on a batch that thread holds open until a flush this thread must finish).
    if (setAside > 0) {
      this.feeder.add({ ...indexItem(conv, records, this.recipientsOf, end.bytes), replace: true });
      await this.indexed();
    }
    this.cache.set(conv);
    this.noteTurns(conv);
    const recovery = this.opts.onLoad?.(conv) ?? [];
    if (recovery.length > 0) this.commit(conv, recovery).durable.catch((err: unknown) => this.opts.onLoadError?.(err, id));
    return conv;
  }
}
