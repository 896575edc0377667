// The conversation log held in memory. Records go through JSON, as they would through a file,
// so a test sees exactly what a restart would read back (no shared objects, no Maps or Sets).

import type { ConversationLog, LogEnd, WholeLog } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

/** Appends must continue the log: n = last + 1, in order. Anything else is a caller bug. */
export class LogSequenceError extends Error {
  override name = "LogSequenceError";
  constructor(conversationId: string, expected: number, got: number) {
    super(`log ${conversationId}: expected record n=${expected}, got n=${got}`);
  }
}

export class LogClosedError extends Error {
  override name = "LogClosedError";
  constructor() {
    super("conversation log is closed");
  }
}

export class MemoryConversationLog implements ConversationLog {
  private readonly lines = new Map<string, string[]>();
  /** Bytes the lines would take in a file (UTF-8, a newline each). */
  private readonly bytes = new Map<string, number>();
  private readonly archived = new Set<string>();
  private closed = false;

  async append(conversationId: string, records: readonly LogRecord[]): Promise<number> {
    if (this.closed) throw new LogClosedError();
    const lines = this.lines.get(conversationId) ?? [];
    let expected = lines.length + 1;
    for (const r of records) {
      if (r.n !== expected) throw new LogSequenceError(conversationId, expected, r.n);
      expected++;
    }
    let bytes = this.bytes.get(conversationId) ?? 0;
    for (const r of records) {
      const line = JSON.stringify(r);
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    this.lines.set(conversationId, lines);
    this.bytes.set(conversationId, bytes);
    return bytes;
  }

  async read(conversationId: string, afterN = 0): Promise<LogRecord[]> {
    const lines = this.lines.get(conversationId) ?? [];
    return lines.slice(afterN).map((l) => JSON.parse(l) as LogRecord);
  }

  /** Nothing is ever damaged in memory: `setAside` is always 0. */
  async readWhole(conversationId: string): Promise<WholeLog> {
    return { records: await this.read(conversationId), end: await this.end(conversationId), setAside: 0 };
  }

  async lastPosition(conversationId: string): Promise<number> {
    return this.lines.get(conversationId)?.length ?? 0;
  }

  async end(conversationId: string): Promise<LogEnd> {
    return { n: this.lines.get(conversationId)?.length ?? 0, bytes: this.bytes.get(conversationId) ?? 0 };
  }

  async list(): Promise<{ id: string; archived: boolean }[]> {
    return [...this.lines.keys()].map((id) => ({ id, archived: this.archived.has(id) }));
  }

  async sizes(): Promise<{ id: string; archived: boolean; bytes: number }[]> {
    return [...this.lines.keys()].map((id) => ({ id, archived: this.archived.has(id), bytes: this.bytes.get(id) ?? 0 }));
  }

  async setArchived(conversationId: string, archived: boolean): Promise<void> {
    if (archived) this.archived.add(conversationId);
    else this.archived.delete(conversationId);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
