// Unread mail: who a message is unread for, read marks, acks, expiry, priority order, inbox.

import { afterEach, describe, expect, it } from "vitest";
import { testProject } from "../helpers/events.js";
import { closeTestIndexes, LogFixture, newTestIndex } from "./sqlite-index-helpers.js";

afterEach(closeTestIndexes);

const T0 = 1_700_000_000;
const NOW = (T0 + 3600) * 1000;

/** A conversation started by the owner for the planner; `log` and `p` to add more. */
function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const { planner, coder } = p.agents as Record<"planner" | "coder", ReturnType<typeof testProject>["owner"]>;
  const root = p.root(p.owner, "Ship the release", [planner.pubkey], [], T0);
  const log = new LogFixture(root.id);
  log.event(root);
  return { p, planner, coder, root, log };
}

describe("SqliteIndex unread", () => {
  it("two messages in the same second are both unread, listed in log order", () => {
    const { p, planner, coder, root, log } = setup();
    const m1 = p.reply(planner, root, "first", [coder.pubkey], [], root, T0 + 10);
    const m2 = p.reply(planner, root, "second", [coder.pubkey], [], root, T0 + 10);
    log.event(m1);
    log.event(m2);
    const index = newTestIndex();
    index.apply(log.conv, log.records);
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(2);
    const page = index.unreadList(coder.pubkey, { now: NOW });
    expect(page.total).toBe(2);
    expect(page.items.map((m) => m.eventId)).toEqual([m1.id, m2.id]);
    expect(page.items.map((m) => m.n)).toEqual([2, 3]);

    // A read mark at the first one's position leaves exactly the second.
    log.add({ t: "read", agent: coder.pubkey, seq: 2 });
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadList(coder.pubkey, { now: NOW }).items.map((m) => m.eventId)).toEqual([m2.id]);
  });

  it("a sender never sees its own message unread, whatever recipientsOf says", () => {
    const { p, planner, coder, root, log } = setup();
    log.event(p.reply(planner, root, "note to self and coder", [planner.pubkey, coder.pubkey], [], root, T0 + 5));
    const everyone = [p.owner.pubkey, planner.pubkey, coder.pubkey];
    const index = newTestIndex({ recipientsOf: () => everyone.map((k) => k.toUpperCase()) });
    index.apply(log.conv, log.records);
    expect(index.unreadCount(planner.pubkey, NOW)).toBe(1); // the root, from the owner
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(2); // root and reply: recipientsOf, not p tags
    expect(index.unreadCount(p.owner.pubkey, NOW)).toBe(1); // the reply, not its own root
  });

  it("read marks and acks reduce unread; a lower read mark brings nothing back", () => {
    const { p, planner, coder, root, log } = setup();
    const msgs = [1, 2, 3, 4].map((i) => p.reply(planner, root, `step ${i}`, [coder.pubkey], [], root, T0 + i));
    for (const m of msgs) log.event(m);
    const index = newTestIndex();
    index.apply(log.conv, log.records);
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(4);

    log.add({ t: "ack", agent: coder.pubkey, eventId: msgs[2]!.id });
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(3);
    expect(index.unreadList(coder.pubkey, { now: NOW }).items.map((m) => m.eventId))
      .toEqual([msgs[0]!.id, msgs[1]!.id, msgs[3]!.id]);

    log.add({ t: "read", agent: coder.pubkey, seq: 3 }); // up to msgs[1]
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(1);

    log.add({ t: "read", agent: coder.pubkey, seq: 1 });
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(1);

    // A message arriving after the read mark is unread; the acked one stays read past the mark.
    log.event(p.reply(planner, root, "one more", [coder.pubkey], [], root, T0 + 9));
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(2);
    log.add({ t: "read", agent: coder.pubkey, seq: log.conv.lastN });
    index.apply(log.conv, log.records.slice(-1));
    expect(index.unreadCount(coder.pubkey, NOW)).toBe(0);
    expect(index.unreadList(coder.pubkey, { now: NOW }).items).toEqual([]);
  });

  it("expired messages are hidden by default and shown on request", () => {
    const { p, planner, coder, root, log } = setup();
    const expiring = p.reply(planner, root, "only today", [coder.pubkey], [["expiration", String(T0 + 100)]], root, T0 + 1);
    const lasting = p.reply(planner, root, "forever", [coder.pubkey], [], root, T0 + 2);
    log.event(expiring);
    log.event(lasting);
    const index = newTestIndex();
    index.apply(log.conv, log.records);

    const before = (T0 + 100) * 1000 - 1; // the last millisecond before its expiration second
    expect(index.unreadCount(coder.pubkey, before)).toBe(2);
    const after = (T0 + 101) * 1000;
    expect(index.unreadCount(coder.pubkey, after)).toBe(1);
    expect(index.unreadList(coder.pubkey, { now: after }).items.map((m) => m.eventId)).toEqual([lasting.id]);
    const all = index.unreadList(coder.pubkey, { now: after, includeExpired: true });
    expect(all.total).toBe(2);
    expect(all.items.map((m) => [m.eventId, m.expiration])).toEqual([[expiring.id, T0 + 100], [lasting.id, null]]);
    expect(index.stats({ now: after }).unread.byAgent[coder.pubkey]).toBe(1);
    expect(index.inbox(coder.pubkey, { now: after }).conversations[0]!.unread).toBe(1);
  });

  it("lists by priority (critical, high, medium or none, low), then time, with pagination", () => {
    const { p, planner, coder, root, log } = setup();
    const send = (content: string, priority: string | undefined, at: number) => {
      const ev = p.reply(planner, root, content, [coder.pubkey], priority ? [["priority", priority]] : [], root, at);
      log.event(ev);
      return content;
    };
    send("low early", "low", T0 + 1);
    send("none", undefined, T0 + 2);
    send("critical late", "critical", T0 + 9);
    send("high", "high", T0 + 3);
    send("medium", "medium", T0 + 1);
    send("critical early", "critical", T0 + 4);
    send("bogus priority ranks as none", "urgent!!", T0 + 5);
    const index = newTestIndex();
    index.apply(log.conv, log.records);

    const order = ["critical early", "critical late", "high", "medium", "none", "bogus priority ranks as none", "low early"];
    const all = index.unreadList(coder.pubkey, { now: NOW, limit: 100 });
    expect(all.items.map((m) => m.preview)).toEqual(order);
    expect(all.items[0]!.priority).toBe("critical");
    const page2 = index.unreadList(coder.pubkey, { now: NOW, limit: 3, offset: 3 });
    expect(page2.total).toBe(7);
    expect(page2.items.map((m) => m.preview)).toEqual(order.slice(3, 6));
  });

  it("the inbox spans conversations with their titles and per-conversation counts", () => {
    const { p, planner, coder, root, log } = setup();
    log.event(p.reply(planner, root, "in the first", [coder.pubkey], [["priority", "low"]], root, T0 + 1));
    const root2 = p.root(p.owner, "Second topic", [coder.pubkey], [["priority", "high"]], T0 + 50);
    const log2 = new LogFixture(root2.id);
    log2.event(root2);
    const index = newTestIndex();
    index.apply(log.conv, log.records);
    index.apply(log2.conv, log2.records);

    const inbox = index.inbox(coder.pubkey, { now: NOW });
    expect(inbox.total).toBe(2);
    expect(inbox.items.map((m) => [m.title, m.preview])).toEqual([["Second topic", "Second topic"], ["Ship the release", "in the first"]]);
    expect(inbox.conversations.map((c) => [c.title, c.unread])).toEqual([["Second topic", 1], ["Ship the release", 1]]);
    expect(index.inbox(coder.pubkey, { now: NOW, conversations: 1 }).conversations.map((c) => c.title)).toEqual(["Second topic"]);
    expect(index.inbox(p.owner.pubkey, { now: NOW })).toEqual({ total: 0, items: [], conversations: [] });
  });
});
