// Queries over the index: conversation search, audit trail, stats, relay high-water marks.

import { afterEach, describe, expect, it } from "vitest";
import type { Phase } from "../../src/types.js";
import { testProject } from "../helpers/events.js";
import { LogFixture, applyIncrementally, closeTestIndexes, newTestIndex, scenario, tempIndexPath } from "./sqlite-index-helpers.js";

const newIndex = (path = tempIndexPath()) => newTestIndex({ path });
afterEach(closeTestIndexes);

const NOW_S = 1_700_000_000;
const HOUR = 3600;
const DAY = 24 * HOUR;

describe("SqliteIndex listConversations", () => {
  function fiveConversations() {
    const p = testProject();
    const { planner, coder } = p.agents as Record<string, ReturnType<typeof testProject>["owner"]>;
    const index = newIndex();
    const titles = ["Alpha login", "Ärger mit ÜMLAUTEN", "alpha cleanup", "Beta docs", "Gamma ALPHA"];
    const logs = titles.map((title, i) => {
      const root = p.root(p.owner, title, [i % 2 === 0 ? planner!.pubkey : coder!.pubkey], [], NOW_S - (5 - i) * DAY);
      const log = new LogFixture(root.id);
      log.event(root);
      return log;
    });
    logs[1]!.add({ t: "phase", from: "chat", to: "plan", by: p.owner.pubkey, message: "m", reason: "r" });
    logs[2]!.add({ t: "archive", archived: true });
    // The oldest gets a late reply: it becomes the most recently active.
    logs[0]!.event(p.reply(planner!, logs[0]!.conv.events[0]!.ev, "late", [], [], undefined, NOW_S));
    for (const log of logs) index.apply(log.conv, log.records);
    return { index, logs, p, planner: planner!, coder: coder! };
  }

  it("searches titles case-insensitively (Unicode too), newest activity first, with a total", () => {
    const { index, logs } = fiveConversations();
    const alpha = index.listConversations({ title: "ALPHA" });
    expect(alpha.total).toBe(3);
    expect(alpha.items.map((c) => c.title)).toEqual(["Alpha login", "Gamma ALPHA", "alpha cleanup"]);
    expect(alpha.items[0]).toMatchObject({ id: logs[0]!.id, messageCount: 2, lastN: 2, phase: "chat", status: "open" });
    expect(index.listConversations({ title: "ümlaut" }).items.map((c) => c.title)).toEqual(["Ärger mit ÜMLAUTEN"]);
    expect(index.listConversations({ title: "%" }).total).toBe(0);
  });

  it("filters by phase, archived, participant and time, and paginates", () => {
    const { index, planner, coder } = fiveConversations();
    expect(index.listConversations({ phase: "plan" }).items.map((c) => c.title)).toEqual(["Ärger mit ÜMLAUTEN"]);
    expect(index.listConversations({ archived: true }).items.map((c) => c.title)).toEqual(["alpha cleanup"]);
    expect(index.listConversations({ archived: false }).total).toBe(4);
    expect(index.listConversations({ participant: coder.pubkey }).items.map((c) => c.title))
      .toEqual(["Beta docs", "Ärger mit ÜMLAUTEN"]);
    expect(index.listConversations({ participant: planner.pubkey }).total).toBe(3);
    // Active during the 3 days before yesterday: created by then, updated since.
    const window = index.listConversations({ from: NOW_S - 3 * DAY, to: NOW_S - 2 * DAY });
    expect(window.items.map((c) => c.title)).toEqual(["Alpha login", "Beta docs", "alpha cleanup"]);

    const page1 = index.listConversations({ limit: 2 });
    const page2 = index.listConversations({ limit: 2, offset: 2 });
    const page3 = index.listConversations({ limit: 2, offset: 4 });
    expect([page1.total, page2.total, page3.total]).toEqual([5, 5, 5]);
    expect([...page1.items, ...page2.items, ...page3.items].map((c) => c.title))
      .toEqual(["Alpha login", "Gamma ALPHA", "Beta docs", "alpha cleanup", "Ärger mit ÜMLAUTEN"]);
  });
});

describe("SqliteIndex auditTrail", () => {
  it("gives every message and state change of one conversation in log order", () => {
    const s = scenario();
    const index = newIndex();
    applyIncrementally(index, s.logs);
    const [a, b] = s.logs;
    const trail = index.auditTrail(a!.id);
    expect(trail.map((e) => [e.n, e.kind])).toEqual([
      [1, "message"], [2, "turn_start"], [3, "message"], [4, "phase"], [5, "phase_refused"], [7, "message"],
      [8, "completion"], [9, "turn_end"], [12, "message"],
    ]);
    expect(trail.map((e) => e.at)).toEqual(trail.map((e) => a!.records[e.n - 1]!.at));
    expect(trail[1]).toMatchObject({ data: { turnId: "t1", number: 1, agents: [s.planner.pubkey] } });
    expect(trail[3]).toMatchObject({ data: { from: "chat", to: "plan", turn: 1, message: "go plan" } });
    expect(trail[4]).toMatchObject({ data: { reason: "plan→chat is not allowed" } });
    expect(trail[7]).toMatchObject({ data: { status: "completed" } });
    expect(trail[8]).toMatchObject({ data: { eventId: s.events.a3.id, priority: "critical", preview: "stop everything" } });
    expect(index.auditTrail(b!.id).map((e) => e.kind === "status" ? e.data.status : e.kind))
      .toEqual(["message", "message", "closed", "archived"]);
    expect(index.auditTrail("0".repeat(64))).toEqual([]);
  });
});

describe("SqliteIndex stats", () => {
  it("counts conversations, volume, communicators, unread and response times on a known data set", () => {
    const p = testProject();
    const { planner, coder } = p.agents as Record<string, ReturnType<typeof testProject>["owner"]>;
    const owner = p.owner;
    const index = newIndex();
    const conv = (title: string, at: number, to: string) => {
      const root = p.root(owner, title, [to], [], at);
      const log = new LogFixture(root.id);
      log.event(root);
      return { log, root };
    };
    const x = conv("Alpha", NOW_S - 3 * HOUR, planner!.pubkey);
    x.log.event(p.reply(planner!, x.root, "r1", [owner.pubkey], [], x.root, NOW_S - 3 * HOUR + 600));
    x.log.add({ t: "phase", from: "chat" as Phase, to: "execute" as Phase, by: owner.pubkey, message: "go", reason: "go" });
    x.log.event(p.reply(owner, x.root, "r2", [planner!.pubkey], [], x.root, NOW_S - 1800));
    x.log.event(p.reply(planner!, x.root, "r3", [owner.pubkey], [], x.root, NOW_S - 1700));
    const y = conv("Beta", NOW_S - 2 * DAY, coder!.pubkey);
    y.log.event(p.reply(coder!, y.root, "y1", [owner.pubkey], [], y.root, NOW_S - 2 * DAY + 60));
    y.log.add({ t: "status", status: "closed" });
    const z = conv("Gamma", NOW_S - 10 * DAY, coder!.pubkey);
    z.log.add({ t: "archive", archived: true });
    for (const c of [x, y, z]) applyIncrementally(index, [c.log]);

    const roles = new Map([[planner!.pubkey, "planner"], [coder!.pubkey, "coder"]]);
    const stats = index.stats({ now: NOW_S * 1000, roles });
    expect(stats.conversations).toEqual({
      total: 3, archived: 1, byPhase: { chat: 2, execute: 1 }, byStatus: { open: 2, closed: 1 },
    });
    expect(stats.messages).toEqual({ total: 7, lastHour: 2, last24h: 4, lastWeek: 6 });
    expect(stats.topCommunicators).toEqual([
      { author: owner.pubkey, messages: 4 }, { author: planner!.pubkey, messages: 2 }, { author: coder!.pubkey, messages: 1 },
    ]);
    expect(stats.unread.byAgent).toEqual({ [planner!.pubkey]: 2, [owner.pubkey]: 3, [coder!.pubkey]: 2 });
    expect(stats.unread.byRole).toEqual({ planner: 2, coder: 2, unknown: 3 });
    expect(stats.responseTimes.byAgent).toEqual({
      [planner!.pubkey]: { count: 2, median: 350, mean: 350 },
      [owner.pubkey]: { count: 1, median: 8400, mean: 8400 },
      [coder!.pubkey]: { count: 1, median: 60, mean: 60 },
    });
    expect(stats.responseTimes.overall).toEqual({ count: 4, median: 350, mean: (600 + 100 + 8400 + 60) / 4 });

    // Window edges fall mid-hour and are exact: r2 is one hour old at NOW+1800 s, and gone a second later.
    expect(index.stats({ now: (NOW_S + 1800) * 1000 }).messages.lastHour).toBe(2);
    expect(index.stats({ now: (NOW_S + 1801) * 1000 }).messages.lastHour).toBe(1);
  });

  it("is all zeros on an empty index", () => {
    const stats = newIndex().stats({ now: NOW_S * 1000 });
    expect(stats.messages).toEqual({ total: 0, lastHour: 0, last24h: 0, lastWeek: 0 });
    expect(stats.responseTimes.overall).toEqual({ count: 0 });
    expect(stats.topCommunicators).toEqual([]);
  });
});

describe("SqliteIndex catch-up marks", () => {
  it("high-water marks only move forward, per relay, and survive a reopen", () => {
    const path = tempIndexPath();
    const index = newIndex(path);
    const relay = "ws://127.0.0.1:7777";
    expect(index.getHighWater(relay)).toBeUndefined();
    expect(index.setHighWater(relay, 1000)).toBe(true);
    expect(index.setHighWater(relay, 900)).toBe(false);
    expect(index.setHighWater(relay, 1000)).toBe(false);
    expect(index.getHighWater(relay)).toBe(1000);
    expect(index.setHighWater(relay, 1001)).toBe(true);
    index.setHighWater("ws://127.0.0.1:8888", 5);
    index.close();
    const reopened = newIndex(path);
    expect(reopened.highWaterMarks()).toEqual(new Map([[relay, 1001], ["ws://127.0.0.1:8888", 5]]));
  });

  it("an event is processed once indexed as a message or marked", () => {
    const s = scenario();
    const index = newIndex();
    applyIncrementally(index, s.logs);
    expect(index.isProcessed(s.events.a2.id)).toBe(true);
    const other = "a".repeat(64);
    expect(index.isProcessed(other)).toBe(false);
    index.markProcessed(other);
    index.markProcessed(other);
    expect(index.isProcessed(other)).toBe(true);
    // Many at once: those processed, whichever way; an id that is no hex changes nothing.
    const unknown = "b".repeat(64);
    expect(index.processedAmong([s.events.a2.id, unknown, other, `"],'x`, s.events.a2.id])).toEqual(new Set([s.events.a2.id, other]));
    expect(index.processedAmong([])).toEqual(new Set());
  });
});
