// The index feeder's held batches (daemon/engine/store/index-feeder.ts): the records a flush is
// writing are sent to the index at once and applied in a transaction left open, committed only
// once every one of them is durable, rolled back when one never becomes so (its durable fellows
// then sent again the ordinary way, ahead of what came meanwhile). The applier here records what
// it is told and answers when the test says: the protocol, not SQLite (the index's side is
// test/integration/held-index-batch.test.ts).

import { describe, expect, it } from "vitest";
import { IndexFeeder } from "../../daemon/engine/store/index-feeder.js";
import { emptyConversation } from "../../src/conversation-reducer.js";
import { indexItem } from "../../src/index-item.js";
import { pTagRecipients } from "../../src/messaging/recipients.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { IndexApplier, IndexItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

const rec = (n: number): LogRecord => ({ n, at: n, t: "read_file", path: `f${n}` });
const conv = (id: string) => emptyConversation(id.padStart(64, "0"));
const item = (c: Conversation, ...ns: number[]) => indexItem(c, ns.map(rec), pTagRecipients);
const lines = new Uint8Array([0x7b, 0x7d]);
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

/**
 * Every call as a line ("hold a:1,2 b:1", "commit", "rollback", "apply a:3"); `declines`: hold
 * says no; `slowApply`: an apply is answered when the test calls `answer`.
 */
function scriptedApplier(opts: { declines?: boolean; holdFails?: boolean; slowApply?: boolean } = {}) {
  const calls: string[] = [];
  const answers: (() => void)[] = [];
  const show = (items: readonly IndexItem[]) => items.map((i) => `${i.conversationId.replace(/^0+/, "")}:${i.records.map((r) => r.n).join(",")}`).join(" ");
  const applier: IndexApplier = {
    blocking: false,
    apply: (items) => {
      calls.push(`apply ${show(items)}`);
      return opts.slowApply ? new Promise<void>((done) => answers.push(done)) : undefined;
    },
    hold: (items) => {
      if (opts.declines) return undefined;
      calls.push(`hold ${show(items)}`);
      return opts.holdFails ? Promise.reject(new Error("SQLITE_FULL")) : Promise.resolve();
    },
    commit: async () => void calls.push("commit"),
    rollback: async () => void calls.push("rollback"),
  };
  return { applier, calls, answer: () => answers.shift()!() };
}

/**
 * An earlier flush made a:1 durable, its batch not sent yet, when the next flush starts writing
 * a:2 and b:1 (their batch is held once this returns).
 */
async function secondFlushWriting(feeder: IndexFeeder) {
  const [a, b] = [conv("a"), conv("b")];
  feeder.add(item(a, 1), 10, lines);
  const a2 = item(a, 2), b1 = item(b, 1);
  feeder.writing(a2, 20, lines);
  feeder.writing(b1, 5, lines);
  await turn();
  return { a, a2, b1 };
}

describe("IndexFeeder: held batches", () => {
  it("holds what a flush writes (the durable items pending sent first, on their own) and commits only once the last of it is durable", async () => {
    const { applier, calls } = scriptedApplier();
    const applied: number[] = [];
    const feeder = new IndexFeeder(applier, (err) => { throw err; }, (items) => applied.push(items.length));
    const { a2, b1 } = await secondFlushWriting(feeder);
    // a:1 is durable: it waits for no flush, and goes before a:2 in the thread's order.
    expect(calls).toEqual(["apply a:1", "hold a:2 b:1"]);
    let idle = false;
    void feeder.idle().then(() => (idle = true));
    feeder.add(a2, 20, lines);
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2 b:1"]); // b:1 is not durable yet
    expect(idle).toBe(false);
    feeder.add(b1, 5, lines);
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2 b:1", "commit"]);
    expect(idle).toBe(true);
    expect(applied).toEqual([1, 2]);
    expect(a2.logBytes).toBe(20);
  });

  it("rolls back when a flush fails for one file, and sends the durable ones again ahead of what came meanwhile", async () => {
    const { applier, calls } = scriptedApplier();
    const errors: string[] = [];
    const feeder = new IndexFeeder(applier, (_err, ids) => errors.push(...ids));
    const { a, a2, b1 } = await secondFlushWriting(feeder);
    feeder.add(a2, 20, lines);
    // Durable while the batch is held (an urgent append of a, after its part of the flush): waits.
    feeder.add(item(a, 3), 30, lines);
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2 b:1"]);
    feeder.lost(b1); // b's file failed to sync: b:1 will never be durable
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2 b:1", "rollback", "apply a:2,3"]);
    expect(errors).toEqual([]);
    await feeder.idle();
  });

  it("with a batch in flight, the durable items pending go in the held batch, ahead of the flush's, and go again if it is rolled back", async () => {
    const { applier, calls, answer } = scriptedApplier({ slowApply: true });
    const feeder = new IndexFeeder(applier, (err) => { throw err; });
    const a = conv("a");
    feeder.add(item(a, 1), 10, lines);
    await turn();
    expect(calls).toEqual(["apply a:1"]); // in flight
    feeder.add(item(a, 2), 20, lines);
    const a3 = item(a, 3);
    feeder.writing(a3, 30, lines);
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2,3"]);
    answer();
    feeder.lost(a3);
    await turn();
    expect(calls).toEqual(["apply a:1", "hold a:2,3", "rollback", "apply a:2"]);
    answer();
    await feeder.idle();
  });

  it("does not hold a second batch: what a later flush writes meanwhile comes once durable, after the commit", async () => {
    const { applier, calls } = scriptedApplier();
    const feeder = new IndexFeeder(applier, (err) => { throw err; });
    const [a, b] = [conv("a"), conv("b")];
    const a1 = item(a, 1), b1 = item(b, 1);
    feeder.writing(a1, 10, lines);
    await turn();
    feeder.writing(b1, 10, lines); // an express flush beside it
    feeder.add(b1, 10, lines);
    await turn();
    expect(calls).toEqual(["hold a:1"]);
    feeder.add(a1, 10, lines);
    await turn();
    expect(calls).toEqual(["hold a:1", "commit", "apply b:1"]);
  });

  it("declined (no thread to hold it), the flush's items go by apply once durable", async () => {
    const { applier, calls } = scriptedApplier({ declines: true });
    const feeder = new IndexFeeder(applier, (err) => { throw err; });
    const a1 = item(conv("a"), 1);
    feeder.writing(a1, 10, lines);
    await turn();
    expect(calls).toEqual([]);
    feeder.add(a1, 10, lines);
    await feeder.idle();
    expect(calls).toEqual(["apply a:1"]);
  });

  it("declined, items already durable before it was sent are applied all the same", async () => {
    const { applier, calls } = scriptedApplier({ declines: true });
    const feeder = new IndexFeeder(applier, (err) => { throw err; });
    const a1 = item(conv("a"), 1);
    feeder.writing(a1, 10, lines);
    feeder.add(a1, 10, lines); // durable in the same turn (a log that tells late)
    await feeder.idle();
    await turn();
    expect(calls).toEqual(["apply a:1"]);
  });

  it("a batch the index could not apply is reported, with its conversations, once its records are durable", async () => {
    const { applier, calls } = scriptedApplier({ holdFails: true });
    const errors: string[] = [];
    const feeder = new IndexFeeder(applier, (err, ids) => errors.push(`${String(err)} ${ids.join(",").replace(/0+/g, "")}`));
    const a1 = item(conv("a"), 1);
    feeder.writing(a1, 10, lines);
    await turn();
    feeder.add(a1, 10, lines);
    await feeder.idle();
    expect(errors).toEqual(["Error: SQLITE_FULL a"]);
    // Nothing left held: the next batch goes through.
    feeder.add(item(conv("b"), 1), 10, lines);
    await feeder.idle();
    expect(calls.at(-1)).toBe("apply b:1");
  });
});
