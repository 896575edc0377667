// A batch of index items as it crosses to the index's thread (worker-index-writer.ts). Items
// whose records come with the lines the log wrote (IndexItem.lines) travel as those bytes, all
// of a batch in one buffer handed over without a copy, and are parsed there: in a profile of
// the live path, posting the records' objects (a structured clone) cost the main thread 8.3 µs an
// event, posting their bytes 2.1. The other items travel as they are.

import { mapPacked } from "../../src/map-packed.js";
import type { IndexItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

/** An item on the wire: its records, or how many bytes of the batch's buffer hold their lines. */
export type WireItem =
  | (Omit<IndexItem, "lines">)
  | (Omit<IndexItem, "records" | "lines"> & { lineBytes: number; recordCount: number });

export interface WireBatch {
  items: WireItem[];
  /** The lines of the items that have them, in item order, each line ending in "\n". */
  lines?: Uint8Array;
}

export class WireBatchError extends Error {
  override name = "WireBatchError";
}

const NEWLINE = 0x0a;

/** The batch for postMessage; `lines`' buffer is its own (transferable). */
export function packBatch(items: readonly IndexItem[]): WireBatch {
  let total = 0;
  for (const item of items) if (item.lines) for (const chunk of item.lines) total += chunk.length + 1;
  if (total === 0) return { items: items.map(withoutLines) };
  const lines = new Uint8Array(total);
  let off = 0;
  const wire = mapPacked(items, (item): WireItem => {
    if (!item.lines) return withoutLines(item);
    const start = off;
    for (const chunk of item.lines) {
      lines.set(chunk, off);
      off += chunk.length;
      lines[off++] = NEWLINE;
    }
    const { records, lines: _, ...rest } = item;
    return { ...rest, lineBytes: off - start, recordCount: records.length };
  });
  return { items: wire, lines };
}

/** The items back, their records parsed from the lines; WireBatchError if the lines do not match. */
export function unpackBatch(batch: WireBatch): IndexItem[] {
  const buf = batch.lines ? Buffer.from(batch.lines.buffer, batch.lines.byteOffset, batch.lines.byteLength) : undefined;
  let off = 0;
  return mapPacked(batch.items, (item): IndexItem => {
    if (!("lineBytes" in item)) return item;
    const { lineBytes, recordCount, ...rest } = item;
    if (!buf || off + lineBytes > buf.length) throw new WireBatchError(`lines of ${item.conversationId} past the batch's end`);
    const text = buf.toString("utf8", off, off + lineBytes - 1);
    off += lineBytes;
    const records = mapPacked(text.split("\n"), (line) => JSON.parse(line) as LogRecord);
    if (records.length !== recordCount) throw new WireBatchError(`${item.conversationId}: ${records.length} lines for ${recordCount} records`);
    return { ...rest, records };
  });
}

function withoutLines(item: IndexItem): WireItem {
  if (!item.lines) return item;
  const { lines: _, ...rest } = item;
  return rest;
}
