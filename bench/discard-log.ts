// A conversation log that keeps nothing: every append is "durable" at once, with a byte count
// that grows by one a record. What bench/live-path.ts puts in the log's place to measure what
// the log costs the daemon (its JSON, its buffers, its flushes and the wait for them). Nothing
// can be read back, so it only serves a store that never evicts and never loads.

import type { ConversationLog, LogEnd, WholeLog } from "../src/ports.js";
import type { LogRecord } from "../src/records.js";

export class DiscardLog implements ConversationLog {
  private readonly counts = new Map<string, number>();

  async append(conversationId: string, records: readonly LogRecord[]): Promise<number> {
    const count = (this.counts.get(conversationId) ?? 0) + records.length;
    this.counts.set(conversationId, count);
    return count;
  }

  async read(): Promise<LogRecord[]> {
    return [];
  }

  async readWhole(): Promise<WholeLog> {
    return { records: [], end: { n: 0, bytes: 0 }, setAside: 0 };
  }

  async lastPosition(): Promise<number> {
    return 0;
  }

  async end(): Promise<LogEnd> {
    return { n: 0, bytes: 0 };
  }

  async list(): Promise<{ id: string; archived: boolean }[]> {
    return [];
  }

  async sizes(): Promise<{ id: string; archived: boolean; bytes: number }[]> {
    return [];
  }

  async setArchived(): Promise<void> {}

  async close(): Promise<void> {}
}
