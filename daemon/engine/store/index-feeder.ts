// Feeds the index with what the log has made durable, in batches: everything that became durable
// in one group-commit flush is applied in one SQLite transaction (a commit per event would cost
// more than all the rows written). The index is derived and may lag the log by a tick; it is
// repaired from the log at start if the process dies in between.
//
// One batch is applied at a time, in order; what becomes durable meanwhile waits and goes in the
// next one, so batches grow with the load. The daemon's batches go to the index's own thread
// (adapters/sqlite-index/worker-index-writer.ts); applied on this thread instead (`inlineApplier`,
// tests and tools), the feeder also leaves a gap between them, see below.
//
// Held batches: when the log starts writing a flush (`writing`, told by the log with where each
// append's lines will end), the index's thread is sent the flush's items at once and applies them
// in a transaction it leaves open (IndexApplier.hold); the feeder commits it as soon as every one
// of them is durable, or rolls it back if one never will be (its flush failed) and sends the
// durable ones again the ordinary way. The index's invariant stands (nothing committed before it
// is durable), and its work on a flush runs beside the flush's writes and syncs instead of after
// them: a burst's last index batch trailed its last flush by ~250 ms of a 1.4 s run. One batch is
// held at a time and nothing else is sent meanwhile; what becomes durable then (appends the log
// wrote elsewhere, an urgent one) waits for the commit, so every conversation's items reach the
// index in log order.

import type { ConversationIndex, IndexApplier, IndexItem } from "../../../src/ports.js";
import type { LogRecord } from "../../../src/records.js";

const MIN_APPLY_GAP_MS = 10;
// Applied on this thread, under load the gap grows to the time the last apply took (the index
// then takes at most about half of the thread, in batches that grow with the load), up to this
// bound on how far the index may lag: the queries that wait for it (ConversationStore.indexed)
// wait at most this.
const MAX_APPLY_GAP_MS = 200;

/** Batches applied on the calling thread, by the index itself. */
export function inlineApplier(index: Pick<ConversationIndex, "applyBatch">): IndexApplier {
  return { blocking: true, apply: (items) => index.applyBatch(items) };
}

/** A held batch (see the head of this file). */
interface Held {
  /** The flush's items, as told by `writing`. */
  readonly items: IndexItem[];
  /** Of those, the ones not durable yet. */
  readonly waiting: Set<IndexItem>;
  /** Of those, the ones that never will be. */
  readonly lost: Set<IndexItem>;
  /** The durable items that were pending when it was sent, and went first (by conversation). */
  before: Map<string, IndexItem[]>;
  /** As sent: the merged items, for onApplied. */
  sent: IndexItem[];
  posted: boolean;
  /** Why the index's thread could not apply it (it rolled it back). */
  applyError?: unknown;
  /** Settles once it is committed or rolled back. */
  readonly done: Deferred;
  /** idle() callers of the pending items it took: released with it, or waiting for them again if it is rolled back. */
  also?: Deferred;
}

export class IndexFeeder {
  /** Per conversation, what it made durable since the last apply, in log order. */
  private pending = new Map<string, IndexItem[]>();
  /** The batch held on the index's thread, or gathering its items this turn. */
  private held: Held | undefined;
  /** Held batches whose commit or rollback is sent and not yet answered. */
  private readonly ending = new Set<Held>();
  private scheduled = false;
  private applying = false;
  private lastApply = -Infinity;
  /** How long the last apply took: the gap before the next one (see MAX_APPLY_GAP_MS). */
  private lastApplyMs = 0;
  /** Settles when the batch being applied is in (or has failed). */
  private current: Deferred | undefined;
  /** Settles when what is queued now is in: the next batch. */
  private next: Deferred | undefined;

  constructor(
    private readonly applier: IndexApplier,
    private readonly onError: (err: unknown, conversationIds: string[]) => void,
    /** Told what each apply made visible, once it is in the index. */
    private readonly onApplied: (items: readonly IndexItem[]) => void = () => undefined,
  ) {}

  /**
   * Queue an item of durable records (in log order, taken when they were committed:
   * src/index-item.ts) with the log's size after them (it goes into the index with them: see
   * ConversationIndex.indexedLogs) and, when the log gave them, the records' lines
   * (IndexItem.lines). The item is the feeder's from here on. Items of one conversation are
   * merged when applied, the later row winning.
   */
  add(item: IndexItem, logBytes?: number, lines?: Uint8Array): void {
    const held = this.held;
    if (held?.waiting.delete(item)) return this.settleHeld(held);
    if (logBytes !== undefined) item.logBytes = logBytes;
    if (lines !== undefined) item.lines = [lines];
    this.queue(item);
    this.schedule();
  }

  /**
   * The log is writing `item`'s records (ConversationLog.appendWithLines' `writing`), to end at
   * byte `end`: it joins the batch held for this flush, unless one is held already (it then
   * comes by `add` once durable, as it would without). `add` or `lost` follows, as ever.
   */
  writing(item: IndexItem, end: number, lines: Uint8Array): void {
    if (!this.applier.hold || this.held?.posted) return;
    let held = this.held;
    if (!held) {
      held = this.held = { items: [], waiting: new Set(), lost: new Set(), before: new Map(), sent: [], posted: false, done: deferred() };
      // Sent once the log has told every append of the flush (it tells them in one go).
      queueMicrotask(() => this.sendHeld());
    }
    item.logBytes = end;
    item.lines = [lines];
    held.items.push(item);
    held.waiting.add(item);
  }

  /** `item`'s records will never be durable (their append failed). */
  lost(item: IndexItem): void {
    const held = this.held;
    if (!held?.waiting.delete(item)) return;
    held.lost.add(item);
    this.settleHeld(held);
  }

  /**
   * Resolves once everything queued so far is applied (or has failed, and been reported): at
   * most the batch being applied and the next one, however busy the feeder stays.
   */
  idle(): Promise<void> {
    const waits: Promise<void>[] = [];
    if (this.pending.size > 0) waits.push((this.next ??= deferred()).done);
    if (this.applying && this.current) waits.push(this.current.done);
    if (this.held) waits.push(this.held.done.done);
    for (const held of this.ending) waits.push(held.done.done);
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }

  /**
   * Applies what is queued now, as one batch, unless one is being applied or held (what is
   * queued then follows it). Applied on this thread, it is in the index when this returns.
   */
  flush(): void {
    this.scheduled = false;
    if (this.applying || this.held) return;
    this.send();
  }

  private send(): void {
    const items = batchOf(this.pending.values());
    this.pending = new Map();
    if (items.length === 0) return;
    this.current = this.next ?? deferred();
    this.next = undefined;
    this.applying = true;
    const start = performance.now();
    let result: Promise<void> | void;
    try {
      result = this.applier.apply(items);
    } catch (err) {
      return this.applied(items, start, err);
    }
    if (result === undefined) return this.applied(items, start);
    result.then(() => this.applied(items, start), (err: unknown) => this.applied(items, start, err ?? new Error("apply failed")));
  }

  private applied(items: readonly IndexItem[], start: number, err?: unknown): void {
    this.applying = false;
    this.lastApply = performance.now();
    this.lastApplyMs = this.lastApply - start;
    const settled = this.current;
    this.current = undefined;
    try {
      if (err !== undefined) this.onError(err, items.map((i) => i.conversationId));
      else this.onApplied(items);
    } finally {
      settled?.release();
      if (this.pending.size > 0) this.schedule();
    }
  }

  private queue(item: IndexItem): void {
    const same = this.pending.get(item.conversationId);
    if (same) same.push(item);
    else this.pending.set(item.conversationId, [item]);
  }

  // The durable items pending go first, as a batch of their own unless one is being applied: they
  // need not wait for this flush (only with one in flight do they go in the held batch, ahead of
  // the flush's items). Either way a conversation's earlier records come first. Declined (the
  // applier would not hold it), the flush's items come by `add`.
  private sendHeld(): void {
    const held = this.held as Held;
    if (!this.applying) this.send();
    // The pending lists stay as they are (they go back to `pending` if this is declined or rolled back).
    const lists = new Map<string, IndexItem[]>();
    for (const [id, list] of this.pending) lists.set(id, list.slice());
    for (const item of held.items) {
      const same = lists.get(item.conversationId);
      if (same) same.push(item);
      else lists.set(item.conversationId, [item]);
    }
    const items = batchOf(lists.values());
    const sent = (this.applier.hold as NonNullable<IndexApplier["hold"]>).call(this.applier, items);
    if (sent === undefined) {
      this.held = undefined;
      // Those durable already (or lost) were told so while it gathered; the rest come by `add`.
      for (const item of held.items) if (!held.waiting.has(item) && !held.lost.has(item)) this.queue(item);
      held.done.release();
      if (this.pending.size > 0) this.schedule();
      return;
    }
    held.before = this.pending;
    held.sent = items;
    held.posted = true;
    held.also = this.next;
    this.pending = new Map();
    this.next = undefined;
    sent.catch((err: unknown) => (held.applyError = err ?? new Error("hold failed")));
    this.settleHeld(held);
  }

  // Once every item of the held batch is durable (or lost): commit, or roll back. Either way the
  // slot is free at once: the index's thread takes its messages in order, so the next flush's batch
  // may be held right behind this one's commit (the log starts that flush before the answer could
  // come back). Rolled back, its durable items are queued again now, ahead of what a next held
  // batch takes, so that each conversation's records stay in order.
  private settleHeld(held: Held): void {
    if (!held.posted || held.waiting.size > 0) return;
    this.held = undefined;
    this.ending.add(held);
    const commit = held.lost.size === 0;
    if (!commit) this.requeue(held);
    const ended = commit ? this.applier.commit!() : this.applier.rollback!();
    ended.then(
      () => this.heldEnded(held, commit),
      (err: unknown) => this.heldEnded(held, commit, err ?? new Error("commit failed")),
    );
    if (!commit) this.schedule();
  }

  private heldEnded(held: Held, committed: boolean, err?: unknown): void {
    this.ending.delete(held);
    const error = held.applyError ?? err;
    try {
      if (error !== undefined) this.onError(error, held.sent.map((i) => i.conversationId));
      else if (committed) this.onApplied(held.sent);
    } finally {
      held.done.release();
      held.also?.release();
      if (this.pending.size > 0) this.schedule();
    }
  }

  // A rolled-back batch's durable items go again, ahead of what became durable meanwhile; the
  // idle() callers of the pending items it had taken wait for them again.
  private requeue(held: Held): void {
    const later = this.pending;
    this.pending = new Map();
    for (const list of held.before.values()) for (const item of list) this.queue(item);
    for (const item of held.items) if (!held.lost.has(item)) this.queue(item);
    for (const list of later.values()) for (const item of list) this.queue(item);
    this.next = joined(held.also, this.next);
    held.also = undefined;
  }

  private schedule(): void {
    if (this.scheduled || this.applying || this.held) return;
    this.scheduled = true;
    // setImmediate runs after the promise callbacks of the flush that made these durable. When
    // events trickle in (as the verifier pool hands them back), applying every small flush at
    // once on this thread costs a transaction and a row update per conversation per event, twice
    // what a large batch costs per event: a gap between applies lets the batches grow. A lone
    // event after a quiet spell is applied at once. On the index's own thread the batch in
    // flight is the gap.
    const gap = this.applier.blocking ? Math.min(MAX_APPLY_GAP_MS, Math.max(MIN_APPLY_GAP_MS, this.lastApplyMs)) : 0;
    const wait = this.lastApply + gap - performance.now();
    if (wait > 0) setTimeout(() => this.flush(), wait);
    else setImmediate(() => this.flush());
  }
}

/** A batch: each conversation's items as one. */
function batchOf(lists: Iterable<IndexItem[]>): IndexItem[] {
  const items: IndexItem[] = [];
  for (const list of lists) items.push(list.length === 1 ? list[0]! : merged(list));
  return items;
}

/** Items of one conversation, in log order, as one: the later row (and log size) winning. */
// Plain loops: it runs for every conversation of every batch, and V8 compiled the flatMap and
// spread version as one of the costlier jobs of a cold run (32 ms).
function merged(all: readonly IndexItem[]): IndexItem {
  // An item that replaces the conversation's rows holds its whole log: what came before it is in it.
  let from = 0;
  for (let i = 0; i < all.length; i++) if (all[i]!.replace) from = i;
  const list = from === 0 ? all : all.slice(from);
  if (list.length === 1) return list[0]!;
  const last = list[list.length - 1]!;
  const records: LogRecord[] = [];
  const recipients: (readonly string[])[] = [];
  const turnNumbers: Record<string, number> = {};
  const sessions: Record<string, string> = {};
  // Lines only if every part has them: they must say all the records do.
  let lines: Uint8Array[] | undefined = [];
  let logBytes: number | undefined;
  for (const i of list) {
    for (const r of i.records) records.push(r);
    for (const r of i.recipients) recipients.push(r);
    Object.assign(turnNumbers, i.turnNumbers);
    Object.assign(sessions, i.sessions);
    if (i.logBytes !== undefined) logBytes = i.logBytes;
    if (lines && i.lines) for (const l of i.lines) lines.push(l);
    else lines = undefined;
  }
  const item: IndexItem = { conversationId: last.conversationId, records, recipients, turnNumbers, sessions, row: last.row };
  if (list[0]!.replace) item.replace = true;
  if (logBytes !== undefined) item.logBytes = logBytes;
  if (lines) item.lines = lines;
  return item;
}

interface Deferred {
  done: Promise<void>;
  release(): void;
}

/** One deferred for the callers of both. */
function joined(a: Deferred | undefined, b: Deferred | undefined): Deferred | undefined {
  if (!a || !b) return a ?? b;
  const both = deferred();
  void both.done.then(() => {
    a.release();
    b.release();
  });
  return both;
}

function deferred(): Deferred {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}
