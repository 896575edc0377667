// Feeds the index with what the log has made durable, in batches: everything that became durable
// in one group-commit flush is applied in one SQLite transaction (a commit per event would cost
// more than all the rows written). The index is derived and may lag the log by a tick; it is
// repaired from the log at start if the process dies in between.
//
// One batch is applied at a time, in order; what becomes durable meanwhile waits and goes in the
// next one, so batches grow with the load. The daemon's batches go to the index's own thread
// (adapters/sqlite-index/worker-index-writer.ts); applied on this thread instead (`inlineApplier`,
// tests and tools), the feeder also leaves a gap between them, see below.

import type { ConversationIndex, IndexApplier, IndexItem } from "../../../src/ports.js";

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

export class IndexFeeder {
  /** Per conversation, what it made durable since the last apply, in log order. */
  private pending = new Map<string, IndexItem[]>();
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
    if (logBytes !== undefined) item.logBytes = logBytes;
    if (lines !== undefined) item.lines = [lines];
    const same = this.pending.get(item.conversationId);
    if (same) same.push(item);
    else this.pending.set(item.conversationId, [item]);
    this.schedule();
  }

  /**
   * Resolves once everything queued so far is applied (or has failed, and been reported): at
   * most the batch being applied and the next one, however busy the feeder stays.
   */
  idle(): Promise<void> {
    if (this.pending.size > 0) return (this.next ??= deferred()).done;
    if (this.applying && this.current) return this.current.done;
    return Promise.resolve();
  }

  /**
   * Applies what is queued now, as one batch, unless one is being applied (what is queued then
   * follows it). Applied on this thread, it is in the index when this returns.
   */
  flush(): void {
    this.scheduled = false;
    if (this.applying) return;
    const items: IndexItem[] = [];
    for (const list of this.pending.values()) items.push(list.length === 1 ? list[0]! : merged(list));
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

  private schedule(): void {
    if (this.scheduled || this.applying) return;
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

/** Items of one conversation, in log order, as one: the later row (and log size) winning. */
function merged(list: readonly IndexItem[]): IndexItem {
  const last = list[list.length - 1]!;
  const item: IndexItem = {
    conversationId: last.conversationId, records: list.flatMap((i) => i.records), recipients: list.flatMap((i) => i.recipients),
    turnNumbers: Object.assign({}, ...list.map((i) => i.turnNumbers)) as Record<string, number>,
    sessions: Object.assign({}, ...list.map((i) => i.sessions)) as Record<string, string>, row: last.row,
  };
  for (const i of list) if (i.logBytes !== undefined) item.logBytes = i.logBytes;
  // Lines only if every part has them: they must say all the records do.
  if (list.every((i) => i.lines !== undefined)) item.lines = list.flatMap((i) => i.lines!);
  return item;
}

interface Deferred {
  done: Promise<void>;
  release(): void;
}

function deferred(): Deferred {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}
