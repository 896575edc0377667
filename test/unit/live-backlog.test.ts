// adapters/nostr/live-backlog.ts: live events are handed on a slice per turn of the event loop,
// in the order they came, except an urgent one with nothing of its conversation waiting.

import { describe, expect, it } from "vitest";
import { LiveBacklog } from "../../adapters/nostr/live-backlog.js";
import type { NostrEvent } from "../../src/types.js";

const hex = (s: string) => Buffer.from(s.padEnd(32, ".")).toString("hex").slice(0, 64);
const root = (name: string): NostrEvent => ({ id: hex(name), pubkey: hex("pk"), created_at: 1, kind: 11, tags: [], content: name, sig: "" });
const reply = (name: string, to: NostrEvent): NostrEvent => ({ ...root(name), kind: 1111, tags: [["E", to.id]] });
const turn = () => new Promise((r) => setImmediate(r));

function backlog() {
  const got: string[] = [];
  const b = new LiveBacklog((ev) => got.push(ev.content), (ev) => ev.content.startsWith("urgent"));
  return { b, got };
}

describe("LiveBacklog", () => {
  it("hands a trickle on in the turn it was read", () => {
    const { b, got } = backlog();
    b.add(root("one"), "ws://r");
    b.add(root("two"), "ws://r");
    expect(got).toEqual(["one", "two"]);
  });

  it("hands a burst on a slice per turn, in order", async () => {
    const { b, got } = backlog();
    const names = Array.from({ length: 200 }, (_, i) => `e${i}`);
    for (const n of names) b.add(root(n), "ws://r");
    expect(got.length).toBeLessThan(200);
    expect(got.length).toBeGreaterThan(0);
    for (let i = 0; i < 10 && got.length < 200; i++) await turn();
    expect(got).toEqual(names);
  });

  it("hands an urgent event on at once, ahead of a burst of other conversations' events", async () => {
    const { b, got } = backlog();
    for (let i = 0; i < 200; i++) b.add(root(`e${i}`), "ws://r");
    const before = got.length;
    b.add(root("urgent trigger"), "ws://r");
    expect(got.length).toBe(before + 1);
    expect(got.at(-1)).toBe("urgent trigger");
    for (let i = 0; i < 10 && got.length < 201; i++) await turn();
    expect(got.filter((n) => n.startsWith("e"))).toEqual(Array.from({ length: 200 }, (_, i) => `e${i}`));
  });

  it("keeps an urgent event behind the waiting events of its own conversation", async () => {
    const { b, got } = backlog();
    const conv = root("c");
    for (let i = 0; i < 100; i++) b.add(root(`e${i}`), "ws://r");
    b.add(reply("said before", conv), "ws://r");
    b.add(reply("urgent reply", conv), "ws://r");
    expect(got).not.toContain("urgent reply");
    for (let i = 0; i < 10 && got.length < 102; i++) await turn();
    expect(got.indexOf("urgent reply")).toBe(got.indexOf("said before") + 1);
  });

  it("holds at most 5,000 events: beyond, the oldest are handed on at once", () => {
    const { b, got } = backlog();
    for (let i = 0; i < 6_000; i++) b.add(root(`e${i}`), "ws://r");
    expect(b.size).toBeLessThanOrEqual(5_000);
    expect(got.slice(0, 3)).toEqual(["e0", "e1", "e2"]);
  });
});
