import { describe, expect, it } from "vitest";
import { replay } from "../../src/conversation-reducer.js";
import { positionOf, seenThrough } from "../../src/event-order.js";
import { referencesOf } from "../../src/references.js";
import type { StoredEvent } from "../../src/conversation-state.js";
import type { NostrEvent } from "../../src/types.js";
import { conversationOf } from "../helpers/conversation.js";
import { testProject, type TestKey } from "../helpers/events.js";

const T = 1_700_000_000;

/** Re-signs until `ok(ev)`: a test that must not pass by luck of the ids. */
function signedUntil(make: (salt: number) => NostrEvent, ok: (ev: NostrEvent) => boolean): NostrEvent {
  for (let salt = 0; salt < 1000; salt++) {
    const ev = make(salt);
    if (ok(ev)) return ev;
  }
  throw new Error("no id met the condition");
}

const compareKeys = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
};

/**
 * The order by its definition (src/event-order.ts), computed from scratch over the events held:
 * an event's key is its own, [created_at, n], unless an event it answers has a key at or after
 * that; then it is the largest such key followed by its n.
 */
function orderByDefinition(events: readonly StoredEvent[]): string[] {
  const byId = new Map(events.map((e) => [e.ev.id, e]));
  const keys = new Map<StoredEvent, number[]>();
  const keyOf = (e: StoredEvent): number[] => {
    const known = keys.get(e);
    if (known) return known;
    const own = [e.ev.created_at, e.n];
    let max: number[] | undefined;
    for (const id of referencesOf(e.ev).ancestors) {
      const a = byId.get(id);
      if (!a) continue;
      const k = keyOf(a);
      if (!max || compareKeys(k, max) > 0) max = k;
    }
    const key = max && compareKeys(own, max) <= 0 ? [...max, e.n] : own;
    keys.set(e, key);
    return key;
  };
  return [...events].sort((a, b) => compareKeys(keyOf(a), keyOf(b))).map((e) => e.ev.content);
}

function setup() {
  const p = testProject({ agents: ["planner"] });
  const root = p.root(p.owner, "root", [], [], T);
  const reply = (by: TestKey, parent: NostrEvent, text: string, at = T) => p.reply(by, root, text, [], [], parent, at);
  const order = (arrivals: NostrEvent[]) => conversationOf(root.id, arrivals).events.map((e) => e.ev.content);
  return { p, root, reply, order };
}

describe("conversation order", () => {
  it("puts a reply of the same second after its root, even when it arrives first and its id sorts first", () => {
    const { p, root, order } = setup();
    const early = signedUntil((s) => p.reply(p.agents.planner!, root, `answer ${s}`, [], [], root, T), (ev) => ev.id < root.id);
    expect(order([early, root])).toEqual(["root", early.content]);
  });

  it("orders unrelated events of one second by arrival, not by id", () => {
    const { p, root, reply, order } = setup();
    const a = reply(p.owner, root, "a");
    const b = signedUntil((s) => reply(p.owner, root, `b ${s}`), (ev) => ev.id < a.id);
    expect(order([root, a, b])).toEqual(["root", "a", b.content]);
  });

  it("orders by created_at first: an older event received late goes before newer ones", () => {
    const { p, root, reply, order } = setup();
    expect(order([root, reply(p.owner, root, "new", T + 5), reply(p.owner, root, "old", T + 1)])).toEqual(["root", "old", "new"]);
  });

  it("moves a chain received newest first behind what it answers, and leaves unrelated events in place", () => {
    const { p, root, reply, order } = setup();
    const x = reply(p.owner, root, "x");
    const y = reply(p.agents.planner!, x, "y");
    const z = reply(p.owner, y, "z");
    const aside = reply(p.owner, root, "aside");
    expect(order([z, aside, y, x, root])).toEqual(["root", "aside", "x", "y", "z"]);
    expect(order([root, z, aside, y, x])).toEqual(["root", "aside", "x", "y", "z"]);
  });

  it("places an answer with a clock behind its parent's right after the parent", () => {
    const { p, root, reply, order } = setup();
    const q = reply(p.owner, root, "q", T + 10);
    const skewed = reply(p.agents.planner!, q, "skewed", T + 2);
    const between = reply(p.owner, root, "between", T + 5);
    expect(order([root, q, between, skewed])).toEqual(["root", "between", "q", "skewed"]);
    expect(order([skewed, between, root, q])).toEqual(["root", "between", "q", "skewed"]);
  });

  it("orders random threads, with clocks skewed either way and any arrival order, as its definition does", () => {
    const { p, root, reply } = setup();
    let seed = 12345;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 25; round++) {
      const events: NostrEvent[] = [root];
      // Each answers an earlier one; its clock up to 3 s either side of the root's.
      for (let i = 0; i < 12; i++) events.push(reply(round % 2 ? p.owner : p.agents.planner!, events[rand(events.length)]!, `${round}.${i}`, T + rand(7) - 3));
      const arrivals = [...events];
      for (let i = arrivals.length - 1; i > 0; i--) {
        const j = rand(i + 1);
        [arrivals[i], arrivals[j]] = [arrivals[j]!, arrivals[i]!];
      }
      // Some held back: events that answer what never came.
      const held = arrivals.filter((ev) => ev === root || rand(5) > 0);
      const conv = conversationOf(root.id, held);
      expect(conv.events.map((e) => e.ev.content)).toEqual(orderByDefinition(conv.events));
    }
  });

  it("is rebuilt exactly by a replay of the log", () => {
    const { p, root, reply } = setup();
    const x = reply(p.owner, root, "x");
    const y = reply(p.agents.planner!, x, "y");
    const conv = conversationOf(root.id, [y, reply(p.owner, root, "w"), x, root]);
    const again = replay(root.id, [...conv.events].sort((a, b) => a.n - b.n));
    expect(again.events.map((e) => e.ev.id)).toEqual(conv.events.map((e) => e.ev.id));
  });

  it("knows the largest log position up to each place, after late arrivals too", () => {
    const { p, root, reply } = setup();
    const x = reply(p.owner, root, "x");
    const conv = conversationOf(root.id, [x, root]);
    // x arrived first (n=1), then the root (n=2), which is ordered before it.
    const at = (ev: NostrEvent) => positionOf(conv.events, conv.order, conv.eventsById.get(ev.id)!);
    expect([at(root), at(x)]).toEqual([0, 1]);
    expect(seenThrough(conv.events, conv.order, at(root))).toBe(2);
    expect(seenThrough(conv.events, conv.order, at(x))).toBe(2);
  });
});
