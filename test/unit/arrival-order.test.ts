// The events of one conversation enter in the order they arrived, whichever check finishes first
// (daemon/engine/ingest/arrival-order.ts): what the route does with the tickets, replayed here
// without the route.

import { describe, expect, it } from "vitest";
import { ArrivalOrder, type Ticket } from "../../daemon/engine/ingest/arrival-order.js";

/** Enters when its turn comes (at once, or once the events before it have entered or left). */
async function enter(order: ArrivalOrder, t: Ticket, log: number[]): Promise<void> {
  const turn = order.turn(t);
  if (turn) await turn;
  log.push(t.n);
  order.leave(t);
}

const settle = () => new Promise((r) => setImmediate(r));

describe("ArrivalOrder", () => {
  it("lets an event whose predecessors are gone go at once, with no promise, and forgets the line once empty", () => {
    const order = new ArrivalOrder();
    const a = order.take("c", false);
    const b = order.take("c", false);
    expect(order.turn(a)).toBeUndefined();
    order.leave(a);
    expect(order.turn(b)).toBeUndefined();
    order.leave(b);
    order.leave(b);
    expect(order.size).toBe(0);
  });

  it("holds an event checked early until those before it have entered, in arrival order", async () => {
    const order = new ArrivalOrder();
    const log: number[] = [];
    const [t0, t1, t2] = [0, 1, 2].map(() => order.take("c", false));
    // The last to arrive is checked first, then the second; the first comes last.
    const late = [enter(order, t2!, log), enter(order, t1!, log)];
    await settle();
    expect(log).toEqual([]);
    await enter(order, t0!, log);
    await Promise.all(late);
    expect(log).toEqual([0, 1, 2]);
    expect(order.size).toBe(0);
  });

  it("an event that leaves early (refused) lets the next go only once those before it are gone", async () => {
    const order = new ArrivalOrder();
    const log: number[] = [];
    const [t0, t1, t2] = [0, 1, 2].map(() => order.take("c", false));
    order.leave(t1!);
    const waiting = enter(order, t2!, log);
    await settle();
    expect(log).toEqual([]);
    await enter(order, t0!, log);
    await waiting;
    expect(log).toEqual([0, 2]);
  });

  it("a root never waits, and what comes after it waits for it alone", async () => {
    const order = new ArrivalOrder();
    const log: number[] = [];
    // A reply delivered before its root: it may be waiting for the root's check.
    const reply = order.take("root", false);
    const root = order.take("root", true);
    const after = order.take("root", false);
    expect(order.turn(root)).toBeUndefined();
    const afterEntered = enter(order, after, log);
    await settle();
    expect(log).toEqual([]);
    await enter(order, root, log);
    await afterEntered;
    expect(log).toEqual([0, 1]);
    await enter(order, reply, log);
    expect(order.size).toBe(0);
  });

  it("keeps conversations apart", async () => {
    const order = new ArrivalOrder();
    const log: number[] = [];
    const a0 = order.take("a", false);
    const b0 = order.take("b", false);
    await enter(order, b0, log);
    expect(log).toEqual([0]);
    order.leave(a0);
    expect(order.size).toBe(0);
  });

  it("follows: right after in the same line, the tickets between having left", () => {
    const order = new ArrivalOrder();
    const [a, b, c, d] = [0, 1, 2, 3].map(() => order.take("x", false)) as [Ticket, Ticket, Ticket, Ticket];
    const other = order.take("y", false);
    const newLine = order.take("x", true);
    expect(order.follows(b, a)).toBe(true);
    expect(order.follows(c, a)).toBe(false);
    expect(order.follows(a, b)).toBe(false);
    expect(order.follows(other, a)).toBe(false);
    expect(order.follows(newLine, d)).toBe(false);
    // b refused (it left out of turn): c comes right after a.
    order.leave(b);
    expect(order.follows(c, a)).toBe(true);
    expect(order.follows(d, a)).toBe(false);
  });
});
