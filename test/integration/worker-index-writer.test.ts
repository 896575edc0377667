// The index written on its own thread (adapters/sqlite-index/worker-index-writer.ts), as the
// daemon writes it: a real worker thread on a real index file, read through the main thread's
// own connection. What it writes must be exactly what the same batches make on this thread; a
// batch SQLite refuses is reported and rolled back without stopping the batches after it; close
// waits for what is in flight.

import { afterEach, describe, expect, it, vi } from "vitest";
import { OnDemandIndexWriter, type OnDemandOptions } from "../../adapters/sqlite-index/on-demand-index-writer.js";
import type { SqliteIndex } from "../../adapters/sqlite-index/sqlite-index.js";
import { IndexWriterError, WorkerIndexWriter } from "../../adapters/sqlite-index/worker-index-writer.js";
import { LineSlab } from "../../adapters/fs-log/line-slab.js";
import { encodeRecords } from "../../adapters/fs-log/record-line.js";
import { IndexFeeder } from "../../daemon/engine/store/index-feeder.js";
import { indexItem } from "../../src/index-item.js";
import { pTagRecipients } from "../../src/messaging/recipients.js";
import type { IndexItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";
import { applyIncrementally, closeTestIndexes, dumpIndex, newTestIndex, scenario, type LogFixture } from "./sqlite-index-helpers.js";

const writers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.close()));
  closeTestIndexes();
});

function writerFor(path: string): WorkerIndexWriter {
  const w = new WorkerIndexWriter(path);
  writers.push(w);
  return w;
}

function onDemandFor(index: SqliteIndex, opts: OnDemandOptions): OnDemandIndexWriter {
  const w = new OnDemandIndexWriter(index, opts);
  writers.push(w);
  return w;
}

/** The logs as batches of a few records each, interleaved, each with the aggregate as of its last record. */
function batches(logs: readonly LogFixture[], size = 2): IndexItem[][] {
  const out: IndexItem[][] = [];
  const next = logs.map(() => 0);
  while (next.some((n, i) => n < logs[i]!.records.length)) {
    const batch: IndexItem[] = [];
    logs.forEach((log, i) => {
      const from = next[i]!;
      const to = Math.min(log.records.length, from + size);
      if (to > from) batch.push(indexItem(log.convAt(to), log.records.slice(from, to), pTagRecipients));
      next[i] = to;
    });
    out.push(batch);
  }
  return out;
}

describe("WorkerIndexWriter", () => {
  it("writes on its own thread exactly what the same batches write on this one, read back through this thread's connection", async () => {
    const s = scenario();
    const inline = newTestIndex();
    applyIncrementally(inline, s.logs, [2]);
    const threaded = newTestIndex();
    const writer = writerFor(threaded.path);
    for (const batch of batches(s.logs)) await writer.apply(batch);
    // The main thread's connection (WAL) sees each committed batch.
    const [a, b] = s.logs;
    expect(threaded.indexedPositions()).toEqual(new Map([[a!.id, a!.records.length], [b!.id, b!.records.length]]));
    await writer.close();
    expect(dumpIndex(threaded.path)).toEqual(dumpIndex(inline.path));
  });

  it("records sent as the log's lines (IndexItem.lines) are written exactly as the records themselves; lines that do not say them are refused", async () => {
    const s = scenario();
    const [a] = s.logs;
    // Text JSON must escape: newlines, quotes, backslashes, U+2028, an emoji.
    const tricky = s.p.root(s.user, 'line one\nline "two" \\ \u2028 ✓ 🎉', [s.planner.pubkey], [], 1_700_000_500);
    a!.event(tricky);
    const logs = s.logs;
    const inline = newTestIndex();
    for (const batch of batches(logs)) inline.applyBatch(batch);
    const threaded = newTestIndex();
    const writer = writerFor(threaded.path);
    // One chunk per record, as the log gives one per append; every other batch mixes in an item without lines.
    const withLines = (item: IndexItem): IndexItem => ({ ...item, lines: item.records.map((r) => linesOf([r])) });
    const all = batches(logs);
    for (const [i, batch] of all.entries()) await writer.apply(batch.map((item, j) => (i % 2 === 1 && j === 0 ? item : withLines(item))));
    expect(dumpIndex(threaded.path)).toEqual(dumpIndex(inline.path));
    expect(dumpIndex(threaded.path).messages!.join("\n")).toContain("line one");

    // Lines that say fewer records than the item has: the batch is refused, nothing of it written.
    const other = newTestIndex();
    const short = all[0]!.map((item) => ({ ...item, lines: [linesOf(item.records.slice(0, 1))] }));
    expect(short.some((item) => item.records.length > 1)).toBe(true);
    const refused = await writerFor(other.path).apply(short).then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(IndexWriterError);
    expect(String((refused as Error).message)).toMatch(/WireBatchError: .*lines for \d+ records/);
    expect(dumpIndex(other.path).messages).toHaveLength(0);
  });

  it("a batch SQLite refuses is rolled back and reported; the batches after it are written", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const [first, ...rest] = batches(s.logs);
    // A conversation row with no phase breaks the table's NOT NULL: the whole batch goes back.
    const broken = first!.map((item) => ({ ...item, row: { ...item.row, phase: null as unknown as string } }));
    const refused = await writer.apply(broken).then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(IndexWriterError);
    expect(String((refused as Error).message)).toMatch(/NOT NULL/i);
    expect(index.indexedPositions().size).toBe(0);
    expect(dumpIndex(index.path).messages).toHaveLength(0);
    await writer.apply(first!);
    for (const batch of rest) await writer.apply(batch);
    expect(dumpIndex(index.path).messages).toHaveLength(6);
  });

  it("a batch that cannot be sent to the thread is refused, and the writer goes on", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const [first] = batches(s.logs);
    const unsendable = first!.map((item) => ({ ...item, row: { ...item.row, title: (() => "x") as unknown as string } }));
    await expect(writer.apply(unsendable)).rejects.toThrow(IndexWriterError);
    await writer.apply(first!);
    expect(index.indexedPositions().size).toBe(2);
    await writer.close();
  });

  it("a thread that dies fails the batch it held, and the next batch starts a new thread", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const [first, ...rest] = batches(s.logs);
    await writer.apply(first!);
    // As an out-of-memory kill of the thread would: it goes with a batch sent to it, whose
    // answer never comes.
    const thread = (writer as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const ended = thread.terminate();
    const lost = writer.apply(rest[0]!);
    await ended;
    await expect(lost).rejects.toThrow(/died/);
    expect(writer.crashes).toBe(1);
    for (const batch of rest) await writer.apply(batch);
    expect(dumpIndex(index.path).messages).toHaveLength(6);
  });

  it("a held batch is seen by no other connection until its commit, is gone after a rollback, and is lost (its commit refused) with a thread that dies", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const [first, second, third] = batches(s.logs);
    await writer.hold(first!);
    expect(dumpIndex(index.path).messages).toHaveLength(0);
    // Held, it keeps the thread: an idle retire must not take the open transaction with it.
    expect(writer.retire()).toBe(false);
    await writer.commit();
    const committed = dumpIndex(index.path).messages!.length;
    expect(committed).toBeGreaterThan(0);
    await writer.hold(second!);
    await writer.rollback();
    expect(dumpIndex(index.path).messages).toHaveLength(committed);
    await writer.hold(third!);
    const thread = (writer as unknown as { worker: { terminate(): Promise<number> } }).worker;
    await thread.terminate();
    await expect(writer.commit()).rejects.toThrow(/lost with its thread/);
    expect(dumpIndex(index.path).messages).toHaveLength(committed);
    // The next batch goes on a new thread, as after any crash.
    await writer.apply(second!);
    expect(dumpIndex(index.path).messages!.length).toBeGreaterThan(committed);
  });

  it("raises relays' high-water marks on its thread, forward only, read back here", async () => {
    const index = newTestIndex();
    const writer = writerFor(index.path);
    await writer.setHighWaters([["wss://a", 1_700_000_100], ["wss://b", 1_700_000_050]]);
    await writer.setHighWaters([["wss://a", 1_700_000_000]]);
    expect(index.highWaterMarks()).toEqual(new Map([["wss://a", 1_700_000_100], ["wss://b", 1_700_000_050]]));
  });

  it("close waits for the batch in flight; a batch after close is refused", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const all = batches(s.logs, 100);
    const applying = writer.apply(all[0]!);
    await writer.close();
    await applying;
    expect(dumpIndex(index.path).messages).toHaveLength(6);
    await expect(writer.apply(all[0]!)).rejects.toThrow(/closed/);
    await writer.close();
  });

  it("fed by the index feeder: idle resolves once the thread has committed, and a refused batch reaches onError", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = writerFor(index.path);
    const errors: string[][] = [];
    const applied: number[] = [];
    const feeder = new IndexFeeder(writer, (_err, ids) => errors.push(ids), (items) => applied.push(items.length));
    for (const batch of batches(s.logs)) for (const item of batch) feeder.add(item);
    await feeder.idle();
    expect(dumpIndex(index.path).messages).toHaveLength(6);
    expect(applied.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const [log] = s.logs;
    feeder.add({ ...indexItem(log!.conv, log!.records, pTagRecipients), row: { ...indexItem(log!.conv, [], pTagRecipients).row, phase: null as unknown as string } });
    await feeder.idle();
    expect(errors).toEqual([[log!.id]]);
  });
});

describe("OnDemandIndexWriter", () => {
  const records = (batch: readonly IndexItem[]) => batch.reduce((n, i) => n + i.records.length, 0);

  it("writes small batches on this thread, starts the thread for a large one, and stops it once idle; the index is what inline applies make", async () => {
    const s = scenario();
    const inline = newTestIndex();
    applyIncrementally(inline, s.logs, [1]);
    const index = newTestIndex();
    const small = batches(s.logs, 1);
    // Two records per small batch (one per conversation); a batch of 3 or more starts the thread.
    expect(small.every((b) => records(b) < 3)).toBe(true);
    const writer = onDemandFor(index, { startAtRecords: 3, idleMs: 50 });
    const [a, b, c, d, ...rest] = small;
    expect(writer.apply(a!)).toBeUndefined();
    expect(writer.blocking).toBe(true);
    expect(index.indexedPositions().size).toBe(2);
    expect(writer.threadsStarted).toBe(0);
    // Two small batches as one: large enough for the thread; the next small one follows it there.
    const large = [...b!, ...c!];
    const onThread = writer.apply(large);
    expect(onThread).toBeInstanceOf(Promise);
    expect(writer.threadRunning).toBe(true);
    expect(writer.blocking).toBe(false);
    const after = writer.apply(d!);
    expect(after).toBeInstanceOf(Promise);
    await onThread;
    await after;
    expect(writer.threadsStarted).toBe(1);
    await vi.waitFor(() => expect(writer.threadRunning).toBe(false), { timeout: 5_000 });
    for (const batch of rest) expect(writer.apply(batch)).toBeUndefined();
    await writer.close();
    expect(dumpIndex(index.path)).toEqual(dumpIndex(inline.path));
  });

  it("starts the thread when inline applies take more than their budget, however small the batches", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = onDemandFor(index, { startAtRecords: 1_000, inlineBudgetMs: 0 });
    const [first, second] = batches(s.logs, 1);
    expect(writer.apply(first!)).toBeUndefined();
    await writer.apply(second!);
    expect(writer.threadsStarted).toBe(1);
    expect(index.indexedPositions().size).toBe(2);
  });

  it("raises high-water marks here with no thread, on the thread while it runs, and here again after close", async () => {
    const s = scenario();
    const index = newTestIndex();
    const writer = onDemandFor(index, { startAtRecords: 1 });
    await writer.setHighWaters([["wss://a", 100]]);
    expect(writer.threadsStarted).toBe(0);
    await writer.apply(batches(s.logs, 1)[0]!);
    expect(writer.threadRunning).toBe(true);
    await writer.setHighWaters([["wss://a", 200], ["wss://b", 50]]);
    await writer.close();
    await writer.setHighWaters([["wss://b", 60]]);
    expect(index.highWaterMarks()).toEqual(new Map([["wss://a", 200], ["wss://b", 60]]));
    await expect(writer.apply(batches(s.logs, 1)[1]!)).rejects.toThrow(/closed/);
  });
});

/** Records as the log writes them (adapters/fs-log/record-line.ts): JSON lines joined by "\n". */
function linesOf(records: readonly LogRecord[]): Uint8Array {
  const encoded = encodeRecords(records);
  if (typeof encoded === "string") throw new Error(encoded);
  return new LineSlab().encode(encoded.parts);
}
