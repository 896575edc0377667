// Feeds the index with what the log has made durable, in batches: everything that became durable
// in one group-commit flush is applied in one SQLite transaction (a commit per event would cost
// more than all the rows written). The index is derived and may lag the log by a tick; it is
// repaired from the log at start if the process dies in between.

import type { Conversation, ConversationRow } from "../../src/conversation-state.js";
import type { ConversationIndex, IndexBatchItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

export class IndexFeeder {
  private pending = new Map<string, { conversation: Conversation; records: LogRecord[]; row: ConversationRow }>();
  private scheduled = false;
  private flushed: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;

  constructor(
    private readonly index: ConversationIndex,
    private readonly onError: (err: unknown, conversationIds: string[]) => void,
  ) {}

  /** Queue durable records of one conversation (in log order), with its row as of the last one. */
  add(conversation: Conversation, records: readonly LogRecord[], row: ConversationRow): void {
    const item = this.pending.get(conversation.id);
    if (item) {
      item.records.push(...records);
      item.row = row;
    } else {
      this.pending.set(conversation.id, { conversation, records: [...records], row });
    }
    if (this.scheduled) return;
    this.scheduled = true;
    this.flushed = new Promise((done) => (this.release = done));
    // setImmediate runs after the promise callbacks of the flush that made these durable.
    setImmediate(() => this.flush());
  }

  /** Resolves once everything queued so far is applied. */
  idle(): Promise<void> {
    return this.flushed;
  }

  flush(): void {
    const items: IndexBatchItem[] = [...this.pending.values()];
    this.pending = new Map();
    this.scheduled = false;
    try {
      if (items.length > 0) this.index.applyBatch(items);
    } catch (err) {
      this.onError(err, items.map((i) => i.conversation.id));
    } finally {
      this.release();
    }
  }
}
