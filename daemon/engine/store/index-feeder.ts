// Feeds the index with what the log has made durable, in batches: everything that became durable
// in one group-commit flush is applied in one SQLite transaction (a commit per event would cost
// more than all the rows written). The index is derived and may lag the log by a tick; it is
// repaired from the log at start if the process dies in between.

import type { ConversationRow } from "../../../src/conversation-state.js";
import type { ConversationIndex, IndexItem } from "../../../src/ports.js";
import type { LogRecord } from "../../../src/records.js";

/** What one conversation made durable since the last apply, as one item. */
interface Pending {
  conversationId: string;
  records: LogRecord[];
  recipients: (readonly string[])[];
  turnNumbers: Record<string, number>;
  sessions: Record<string, string>;
  row: ConversationRow;
  logBytes?: number;
}

const MIN_APPLY_GAP_MS = 10;
// Under load the gap grows to the time the last apply took (the index then takes at most about
// half of the main thread, in batches that grow with the load), up to this bound on how far
// the index may lag: the queries that wait for it (ConversationStore.indexed) wait at most this.
const MAX_APPLY_GAP_MS = 200;

export class IndexFeeder {
  private pending = new Map<string, Pending>();
  private scheduled = false;
  private lastApply = -Infinity;
  /** How long the last apply took: the gap before the next one (see MAX_APPLY_GAP_MS). */
  private lastApplyMs = 0;
  private flushed: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;

  constructor(
    private readonly index: ConversationIndex,
    private readonly onError: (err: unknown, conversationIds: string[]) => void,
    /** Told what each apply made visible, once it is in the index. */
    private readonly onApplied: (items: readonly IndexItem[]) => void = () => undefined,
  ) {}

  /**
   * Queue an item of durable records (in log order, taken when they were committed:
   * src/index-item.ts) with the log's size after them (it goes into the index with them: see
   * ConversationIndex.indexedLogs). Items of one conversation are merged, the later row winning.
   */
  add(item: IndexItem, logBytes?: number): void {
    const same = this.pending.get(item.conversationId);
    if (same) {
      same.records.push(...item.records);
      same.recipients.push(...item.recipients);
      Object.assign(same.turnNumbers, item.turnNumbers);
      Object.assign(same.sessions, item.sessions);
      same.row = item.row;
      if (logBytes !== undefined) same.logBytes = logBytes;
    } else {
      this.pending.set(item.conversationId, {
        conversationId: item.conversationId, records: [...item.records], recipients: [...item.recipients],
        turnNumbers: { ...item.turnNumbers }, sessions: { ...item.sessions }, row: item.row,
        ...(logBytes !== undefined ? { logBytes } : {}),
      });
    }
    if (this.scheduled) return;
    this.scheduled = true;
    this.flushed = new Promise((done) => (this.release = done));
    // setImmediate runs after the promise callbacks of the flush that made these durable. When
    // events trickle in (as the verifier pool hands them back), applying every small flush at
    // once costs a transaction and a row update per conversation per event, twice what a large
    // batch costs per event: a gap between applies lets the batches grow. A lone event after a
    // quiet spell is applied at once.
    const gap = Math.min(MAX_APPLY_GAP_MS, Math.max(MIN_APPLY_GAP_MS, this.lastApplyMs));
    const wait = this.lastApply + gap - performance.now();
    if (wait > 0) setTimeout(() => this.flush(), wait);
    else setImmediate(() => this.flush());
  }

  /** Resolves once everything queued so far is applied. */
  idle(): Promise<void> {
    return this.flushed;
  }

  flush(): void {
    const start = performance.now();
    const items: IndexItem[] = [...this.pending.values()];
    this.pending = new Map();
    this.scheduled = false;
    let applied = false;
    try {
      if (items.length > 0) this.index.applyBatch(items);
      applied = items.length > 0;
    } catch (err) {
      this.onError(err, items.map((i) => i.conversationId));
    } finally {
      this.lastApply = performance.now();
      this.lastApplyMs = this.lastApply - start;
      this.release();
    }
    if (applied) this.onApplied(items);
  }
}
