// ConversationQueues (daemon/ingest/conversation-queues.ts): tasks of one conversation run one
// at a time in the order given, at most N conversations run at once, a conversation with much to
// do takes turns with the others, and a failing task fails alone.

import { describe, expect, it } from "vitest";
import { ConversationQueues } from "../../daemon/engine/ingest/conversation-queues.js";

const tick = () => new Promise((r) => setImmediate(r));

/** A task that records its start and end and finishes when released. */
function controlled(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const task = async () => {
    log.push(`start ${name}`);
    await done;
    log.push(`end ${name}`);
    return name;
  };
  return { task, release };
}

describe("ConversationQueues", () => {
  it("runs a conversation's tasks one at a time, in order", async () => {
    const q = new ConversationQueues(4);
    const log: string[] = [];
    const a1 = controlled(log, "a1");
    const a2 = controlled(log, "a2");
    const r1 = q.run("a", a1.task);
    const r2 = q.run("a", a2.task);
    await tick();
    expect(log).toEqual(["start a1"]);
    a2.release(); // released early: still waits for a1
    await tick();
    expect(log).toEqual(["start a1"]);
    a1.release();
    expect(await Promise.all([r1, r2])).toEqual(["a1", "a2"]);
    expect(log).toEqual(["start a1", "end a1", "start a2", "end a2"]);
  });

  it("runs at most N conversations at once; the others wait their turn in arrival order", async () => {
    const q = new ConversationQueues(2);
    const log: string[] = [];
    const tasks = ["a", "b", "c", "d"].map((id) => ({ id, ...controlled(log, id) }));
    const results = tasks.map((t) => q.run(t.id, t.task));
    await tick();
    expect(log).toEqual(["start a", "start b"]);
    expect(q.depths()).toEqual({ conversations: 4, queued: 2, running: 2 });
    tasks[1]!.release();
    await tick();
    expect(log).toEqual(["start a", "start b", "end b", "start c"]);
    for (const t of tasks) t.release();
    await Promise.all(results);
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start a", "start b", "start c", "start d"]);
  });

  it("a conversation with many tasks goes to the back after each, so it cannot hold a slot", async () => {
    const q = new ConversationQueues(1);
    const order: string[] = [];
    const step = (name: string) => async () => void order.push(name);
    const all = [q.run("busy", step("busy 1")), q.run("busy", step("busy 2")), q.run("busy", step("busy 3")), q.run("other", step("other"))];
    await Promise.all(all);
    expect(order).toEqual(["busy 1", "other", "busy 2", "busy 3"]);
  });

  it("a task that fails (or throws before its first await) fails alone; the queue goes on", async () => {
    const q = new ConversationQueues(1);
    const failing = q.run("a", async () => {
      throw new Error("async failure");
    });
    const throwing = q.run("a", (() => {
      throw new Error("sync failure");
    }) as () => Promise<never>);
    const after = q.run("a", async () => "after");
    await expect(failing).rejects.toThrow("async failure");
    await expect(throwing).rejects.toThrow("sync failure");
    expect(await after).toBe("after");
  });

  it("is busy while a conversation has work, idle once nothing is queued or running", async () => {
    const q = new ConversationQueues(2);
    await q.idle(); // nothing to wait for
    const log: string[] = [];
    const a = controlled(log, "a");
    const run = q.run("a", a.task);
    expect(q.isBusy("a")).toBe(true);
    expect(q.isBusy("b")).toBe(false);
    let idle = false;
    const waited = q.idle().then(() => (idle = true));
    await tick();
    expect(idle).toBe(false);
    a.release();
    await run;
    await waited;
    expect(idle).toBe(true);
    expect(q.isBusy("a")).toBe(false);
    expect(q.depths()).toEqual({ conversations: 0, queued: 0, running: 0 });
  });

  it("gives the next free slot to a conversation with an urgent task, ahead of those waiting before it", async () => {
    const q = new ConversationQueues(1);
    const order: string[] = [];
    const step = (name: string) => async () => void order.push(name);
    const first = controlled([], "first");
    const runs: Promise<unknown>[] = [q.run("busy", first.task)];
    for (let i = 0; i < 50; i++) runs.push(q.run(`flood ${i}`, step(`flood ${i}`)));
    runs.push(q.run("trigger", step("trigger"), true));
    await tick();
    first.release();
    await Promise.all(runs);
    expect(order[0]).toBe("trigger");
    expect(order.slice(1)).toEqual(Array.from({ length: 50 }, (_, i) => `flood ${i}`));
  });

  it("an urgent task joining a waiting conversation moves it ahead, after that conversation's earlier tasks", async () => {
    const q = new ConversationQueues(1);
    const order: string[] = [];
    const step = (name: string) => async () => void order.push(name);
    const first = controlled([], "first");
    const runs: Promise<unknown>[] = [q.run("busy", first.task)];
    runs.push(q.run("other 1", step("other 1")));
    runs.push(q.run("conv", step("conv 1")));
    runs.push(q.run("other 2", step("other 2")));
    runs.push(q.run("conv", step("conv 2 (urgent)"), true));
    runs.push(q.run("conv", step("conv 3")));
    await tick();
    first.release();
    await Promise.all(runs);
    // The conversation's own tasks keep their order; it takes turns again once its urgent one ran.
    expect(order).toEqual(["conv 1", "conv 2 (urgent)", "other 1", "other 2", "conv 3"]);
    expect(q.depths()).toEqual({ conversations: 0, queued: 0, running: 0 });
  });
});
