// The index feeder (daemon/store/index-feeder.ts) against an index that records its batches:
// what became durable together is applied together, in log order, and under load the gap
// between applies grows with the time an apply takes, so batches grow with the load.

import { describe, expect, it } from "vitest";
import { IndexFeeder, inlineApplier } from "../../daemon/engine/store/index-feeder.js";
import { emptyConversation } from "../../src/conversation-reducer.js";
import { indexItem } from "../../src/index-item.js";
import { pTagRecipients } from "../../src/messaging/recipients.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { ConversationIndex, IndexItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

const rec = (n: number): LogRecord => ({ n, at: n, t: "read_file", path: `f${n}` });

/** An index that keeps each batch's records and when it was applied; `busyMs`: how long each apply takes. */
function recordingIndex(busyMs = 0) {
  const batches: { records: Map<string, number[]>; start: number; end: number }[] = [];
  const index = {
    applyBatch(items: readonly IndexItem[]) {
      const start = performance.now();
      while (performance.now() - start < busyMs); // the apply's own time, on this thread
      batches.push({ records: new Map(items.map((i) => [i.conversationId, i.records.map((r) => r.n)])), start, end: performance.now() });
    },
  } as unknown as ConversationIndex;
  return { index, batches };
}

const conv = (id: string) => emptyConversation(id.padStart(64, "0"));
const item = (c: Conversation, records: LogRecord[]) => indexItem(c, records, pTagRecipients);

describe("IndexFeeder", () => {
  it("applies what was added together in one batch, each conversation's records in order", async () => {
    const { index, batches } = recordingIndex();
    const feeder = new IndexFeeder(inlineApplier(index), (err) => { throw err; });
    const a = conv("a");
    const b = conv("b");
    feeder.add(item(a, [rec(1), rec(2)]), 10);
    feeder.add(item(b, [rec(1)]), 5);
    feeder.add(item(a, [rec(3)]), 15);
    await feeder.idle();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.records).toEqual(new Map([[a.id, [1, 2, 3]], [b.id, [1]]]));
  });

  it("merges a conversation's lines in order when every part has them, and sends none when one part lacks them", async () => {
    const applied: IndexItem[] = [];
    const feeder = new IndexFeeder({ blocking: true, apply: (items) => void applied.push(...items) }, (err) => { throw err; });
    const a = conv("a");
    const b = conv("b");
    const bytes = (text: string) => new TextEncoder().encode(text);
    feeder.add(item(a, [rec(1)]), 10, bytes("a1"));
    feeder.add(item(b, [rec(1)]), 10, bytes("b1"));
    feeder.add(item(a, [rec(2)]), 20, bytes("a2"));
    feeder.add(item(b, [rec(2)]), 20);
    await feeder.idle();
    const byId = new Map(applied.map((i) => [i.conversationId, i]));
    expect(byId.get(a.id)!.lines!.map((l) => new TextDecoder().decode(l))).toEqual(["a1", "a2"]);
    expect(byId.get(a.id)!.records.map((r) => r.n)).toEqual([1, 2]);
    // Lines for some of b's records only would say less than its records: it goes without them.
    expect(byId.get(b.id)!.lines).toBeUndefined();
    expect(byId.get(b.id)!.records.map((r) => r.n)).toEqual([1, 2]);
  });

  it("an item that replaces its conversation (its whole log) takes the place of that conversation's items before it", async () => {
    const applied: IndexItem[] = [];
    const feeder = new IndexFeeder({ blocking: true, apply: (items) => void applied.push(...items) }, (err) => { throw err; });
    const a = conv("a");
    feeder.add(item(a, [rec(1)]), 10);
    feeder.add({ ...item(a, [rec(1), rec(2), rec(3)]), replace: true }, 30);
    feeder.add(item(a, [rec(4)]), 40);
    await feeder.idle();
    expect(applied.map((i) => [i.records.map((r) => r.n), i.replace, i.logBytes])).toEqual([[[1, 2, 3, 4], true, 40]]);
  });

  it("after a slow apply, what arrives one event at a time is gathered into one batch (batches grow with the load)", async () => {
    const { index, batches } = recordingIndex(100);
    const feeder = new IndexFeeder(inlineApplier(index), (err) => { throw err; });
    const a = conv("a");
    feeder.add(item(a, [rec(1)]), 1);
    await feeder.idle();
    // Events trickling in, each in a turn of the event loop of its own, right after a 100 ms
    // apply: applied at once they would make three transactions; the feeder waits and makes one.
    // (How long it waits is the bench's business, not this test's.)
    for (const n of [2, 3, 4]) {
      feeder.add(item(a, [rec(n)]), n);
      await new Promise((r) => setImmediate(r));
    }
    await feeder.idle();
    expect(batches.map((b) => b.records.get(a.id))).toEqual([[1], [2, 3, 4]]);
  });

  it("idle settles once what was queued when it was asked is applied, though more keeps coming (batches applied elsewhere)", async () => {
    // Applied on another thread, as the daemon's index is: each batch is answered when the test says.
    const answers: (() => void)[] = [];
    const batches: number[][] = [];
    const applier = {
      blocking: false,
      apply: (items: readonly IndexItem[]) => {
        batches.push(items.flatMap((i) => i.records.map((r) => r.n)));
        return new Promise<void>((done) => answers.push(done));
      },
    };
    const feeder = new IndexFeeder(applier, (err) => { throw err; });
    const a = conv("a");
    // A few turns of the event loop: the answer's callbacks, then the next batch's flush.
    const turn = async () => {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    };
    feeder.add(item(a, [rec(1)]), 1);
    await turn();
    expect(batches).toEqual([[1]]);
    feeder.add(item(a, [rec(2)]), 2);
    let settled = false;
    void feeder.idle().then(() => (settled = true));
    answers.shift()!();
    await turn();
    expect(batches).toEqual([[1], [2]]);
    // A steady stream: something is always queued when a batch is answered.
    feeder.add(item(a, [rec(3)]), 3);
    answers.shift()!();
    await turn();
    expect(settled).toBe(true);
    expect(batches).toEqual([[1], [2], [3]]);
    answers.shift()!();
    await feeder.idle();
  });
});
