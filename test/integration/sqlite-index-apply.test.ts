// The index as a derived store: idempotent apply, rebuild = incremental, drop, reset.

import { afterEach, describe, expect, it } from "vitest";
import { indexItem } from "../../src/index-item.js";
import { pTagRecipients } from "../../src/messaging/recipients.js";
import { applyIncrementally, closeTestIndexes, dumpIndex, newTestIndex, scenario, tempIndexPath } from "./sqlite-index-helpers.js";

const newIndex = (path = tempIndexPath()) => newTestIndex({ path });
afterEach(closeTestIndexes);

describe("SqliteIndex apply", () => {
  it("indexes every record type of a log", () => {
    const s = scenario();
    const index = newIndex();
    applyIncrementally(index, s.logs);
    const dump = dumpIndex(index.path);
    expect(dump.messages).toHaveLength(6);
    expect(dump.phase_transitions).toHaveLength(2);
    expect(dump.turns).toHaveLength(1);
    expect(dump.completions).toHaveLength(1);
    expect(dump.status_changes).toHaveLength(2);
    expect(dump.acks).toHaveLength(1);
    const [a, b] = s.logs;
    expect(index.indexedPositions()).toEqual(new Map([[a!.id, a!.records.length], [b!.id, b!.records.length]]));
    const coderView = dump.views!.map((r) => JSON.parse(r)).find((v) => v.agent === s.coder.pubkey);
    expect(coderView).toMatchObject({ cursor_n: 12, session: "s2" });
  });

  it("re-applying records already indexed changes nothing", () => {
    const s = scenario();
    const index = newIndex();
    applyIncrementally(index, s.logs);
    const before = dumpIndex(index.path);
    for (const log of s.logs) {
      index.apply(log.conv, log.records);
      index.apply(log.conv, log.records.slice(2, 7));
      index.apply(log.convAt(3), log.records.slice(0, 3));
    }
    applyIncrementally(index, s.logs, [2, 5]);
    expect(dumpIndex(index.path)).toEqual(before);
  });

  it("a rebuilt index (each log applied in one go) equals the incrementally maintained one", () => {
    const s = scenario();
    const incremental = newIndex();
    applyIncrementally(incremental, s.logs);
    const rebuilt = newIndex();
    for (const log of [...s.logs].reverse()) rebuilt.apply(log.conv, log.records);
    expect(dumpIndex(rebuilt.path)).toEqual(dumpIndex(incremental.path));
  });

  it("drop forgets one conversation, aggregates included, and re-applying its log restores it", () => {
    const s = scenario();
    const [a, b] = s.logs;
    const index = newIndex();
    applyIncrementally(index, s.logs);
    const before = dumpIndex(index.path);

    index.drop(a!.id);
    const dropped = dumpIndex(index.path);
    for (const [table, rows] of Object.entries(dropped)) {
      expect(rows.filter((r) => r.includes(a!.id)), table).toEqual([]);
    }
    expect(index.stats({ now: 0 }).messages.total).toBe(2);
    expect(index.stats({ now: 0 }).responseTimes.overall).toEqual({ count: 1, median: 60, mean: 60 }); // B's coder
    expect(index.unreadCount(s.coder.pubkey, 0)).toBe(1); // only rootB is left
    expect(index.indexedPositions()).toEqual(new Map([[b!.id, b!.records.length]]));

    index.apply(a!.conv, a!.records);
    expect(dumpIndex(index.path)).toEqual(before);
  });

  it("an item that replaces its conversation (whole log, after damaged lines) leaves what drop and a fresh apply leave, amid other items of its batch", () => {
    const s = scenario();
    const [a, b] = s.logs;
    const expected = newIndex();
    applyIncrementally(expected, s.logs);
    expected.drop(a!.id);
    expected.apply(a!.conv, a!.records);
    const index = newIndex();
    const bFirst = b!.records.length - 3; // its reply, then its status and archive records
    index.apply(a!.conv, a!.records);
    index.apply(b!.convAt(bFirst), b!.records.slice(0, bFirst));
    // B's last three records (new: its reply counts in the aggregates) before A's replacement in one batch,
    // the last of them again after it (a no-op).
    const item = (log: typeof a, records = log!.records) => indexItem(log!.conv, records, pTagRecipients);
    index.applyBatch([item(b, b!.records.slice(bFirst)), { ...item(a), replace: true }, item(b, b!.records.slice(-1))]);
    expect(dumpIndex(index.path)).toEqual(dumpIndex(expected.path));
    expect(index.stats({ now: 0 }).messages.total).toBe(6);
  });

  it("resetAll empties every table", () => {
    const s = scenario();
    const index = newIndex();
    applyIncrementally(index, s.logs);
    index.setHighWater("ws://127.0.0.1:1", 5);
    index.markProcessed("f".repeat(64));
    index.resetAll();
    for (const [table, rows] of Object.entries(dumpIndex(index.path))) expect(rows, table).toEqual([]);
    expect(index.indexedPositions().size).toBe(0);
  });
});
