// The conversation store's cache against a real log and index: a conversation pinned while work
// on it runs outside its queue (an agent's command, with an execution-time session open) stays
// in memory however full the cache gets, and leaves it normally once unpinned; the cache is
// bounded by the memory its conversations hold; a log with a damaged line is served minus that
// line, and the index brought back in step with it.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { LogLayout } from "../../adapters/fs-log/layout.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import { decideExecStart, recoverOpenSession } from "../../src/execution-time.js";
import { eventMemoryBytes } from "../../src/memory-estimate.js";
import type { IndexApplier, IndexItem } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("ConversationStore: pinned conversations", () => {
  it("keeps a pinned conversation in memory while others push it out of the cache, and lets it go once unpinned", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const log = new FileConversationLog(dir);
    const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
    const loads: string[] = [];
    const read = log.readWhole.bind(log);
    log.readWhole = (id) => (loads.push(id), read(id));
    // Room for nothing but the conversation used last; loading closes a session left open, as
    // the daemon's does.
    const store = new ConversationStore({ log, index, maxCachedBytes: 1, onLoad: (conv) => recoverOpenSession(conv.exec) });
    await store.init();

    const roots = Array.from({ length: 3 }, (_, i) => p.root(p.owner, `topic ${i}`));
    for (const root of roots) {
      const conv = await store.getOrCreate(root.id, p.info.coordinate);
      await store.commit(conv, [{ t: "event", at: 1, ev: root, origin: "relay" }]).durable;
    }
    const [a, b, c] = roots.map((r) => r.id) as [string, string, string];

    // A command starts on a: its session opens, and a is pinned for the run.
    const conv = (await store.get(a))!;
    await store.commit(conv, decideExecStart(conv.exec, 1_000)).durable;
    store.pin(a);
    loads.length = 0;
    await store.get(b);
    await store.get(c);
    expect(await store.get(a)).toBe(conv);
    expect(loads).not.toContain(a);
    expect(conv.exec.openSince).toBe(1_000); // not closed by a reload

    store.unpin(a);
    await store.get(b);
    await store.get(c);
    const again = await store.get(a);
    expect(loads).toContain(a);
    expect(again).not.toBe(conv);

    await store.indexed();
    await log.close();
    index.close();
  });
});

function open(dir: string, maxCachedBytes?: number, applier?: IndexApplier) {
  const log = new FileConversationLog(dir);
  const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const loads: string[] = [];
  const read = log.readWhole.bind(log);
  log.readWhole = (id) => (loads.push(id), read(id));
  const store = new ConversationStore({ log, index, ...(maxCachedBytes !== undefined ? { maxCachedBytes } : {}), ...(applier ? { applier } : {}) });
  return { log, index, store, loads, close: async () => (await store.indexed(), await log.close(), index.close()) };
}

async function storeAll(store: ConversationStore, coordinate: string, events: NostrEvent[]): Promise<void> {
  for (const ev of events) {
    const conv = await store.getOrCreate(ev.id === events[0]!.id || !ev.tags.some((t) => t[0] === "E") ? ev.id : ev.tags.find((t) => t[0] === "E")![1]!, coordinate);
    await store.commit(conv, [{ t: "event", at: 1, ev, origin: "relay" }]).durable;
  }
}

describe("ConversationStore: the cache is bounded by bytes", () => {
  it("conversations of large events push the least recently used out: the bytes held stay within the bound, and every one is still served", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const roots = Array.from({ length: 10 }, (_, i) => p.root(p.owner, `topic ${i} `.padEnd(50_000, "x")));
    const bound = 3 * eventMemoryBytes(roots[0]!) + 8_000;
    const s = open(dir, bound);
    await s.store.init();
    await storeAll(s.store, p.info.coordinate, roots);
    expect(s.store.stats().cachedBytes).toBeLessThanOrEqual(bound);
    expect(s.store.stats().cachedConversations).toBe(3);
    // Those pushed out are read again from their logs when used (newest first: the three still
    // held answer from memory).
    for (const root of [...roots].reverse()) expect((await s.store.get(root.id))?.events[0]?.ev.content).toBe(root.content);
    expect(s.loads).toHaveLength(7);
    expect(s.store.stats().cachedBytes).toBeLessThanOrEqual(bound);
    await s.close();
  });

  it("one conversation larger than the whole bound is still served, and kept while it is the one in use", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const root = p.root(p.owner, "a big one");
    const replies = Array.from({ length: 5 }, (_, i) => p.reply(p.owner, root, `reply ${i} `.padEnd(100_000, "y")));
    const s = open(dir, 100_000);
    await s.store.init();
    await storeAll(s.store, p.info.coordinate, [root, ...replies]);
    await s.close();

    const again = open(dir, 100_000);
    await again.store.init();
    const conv = await again.store.get(root.id);
    expect(conv?.events).toHaveLength(6);
    expect(await again.store.get(root.id)).toBe(conv);
    expect(again.loads).toEqual([root.id]);
    expect(again.store.stats().cachedBytes).toBeGreaterThan(500_000);
    await again.close();
  });
});

describe("ConversationStore: a damaged line in a stored log", () => {
  it("is served minus that line, and the index, which held it, is brought back in step before the read answers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const root = p.root(p.owner, "topic");
    const replies = Array.from({ length: 4 }, (_, i) => p.reply(p.owner, root, `reply ${i}`));
    const first = open(dir);
    await first.store.init();
    await storeAll(first.store, p.info.coordinate, [root, ...replies]);
    await first.close();

    // Same length: the index's record of the log's size still matches; only a read finds it.
    const path = join(dir, "conversations", `${root.id}.jsonl`);
    const lines = readFileSync(path, "utf8").split("\n");
    lines[2] = "#".repeat(Buffer.byteLength(lines[2]!));
    writeFileSync(path, lines.join("\n"));

    const s = open(dir);
    await s.store.init();
    const conv = await s.store.get(root.id);
    expect(conv?.events.map((e) => e.ev.id).sort()).toEqual([root, ...replies].map((e) => e.id).filter((id) => id !== replies[1]!.id).sort());
    const db = new Database(join(dir, "index.sqlite"), { readonly: true });
    try {
      expect(db.prepare("SELECT message_count FROM conversations WHERE id = ?").pluck().get(root.id)).toBe(4);
      expect(db.prepare("SELECT count(*) FROM messages WHERE conversation_id = ?").pluck().get(root.id)).toBe(4);
      expect(db.prepare("SELECT count(*) FROM messages WHERE event_id = ?").pluck().get(replies[1]!.id)).toBe(0);
    } finally {
      db.close();
    }
    // The lost event may come back (from a relay): it is no longer held, so it is taken again.
    expect(s.store.hasEvent(replies[1]!.id, root.id)).toBe(false);
    await s.close();
  });
});

describe("ConversationStore: what the index is fed", () => {
  it("hands the index each commit's records with the lines the log wrote for them, and a conversation's commits merged in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const applied: IndexItem[][] = [];
    const { store, close } = open(dir, undefined, { blocking: false, apply: async (items) => void applied.push([...items]) });
    await store.init();
    const root = p.root(p.owner, 'first "line"\nsecond ✓');
    const conv = await store.getOrCreate(root.id, p.info.coordinate);
    const commits = [
      store.commit(conv, [{ t: "event", at: 1, ev: root, origin: "relay" }]),
      store.commit(conv, [{ t: "event", at: 2, ev: p.reply(p.owner, root, "again"), origin: "relay" }, { t: "read", at: 2, agent: p.owner.pubkey, seq: 1 }]),
    ];
    await Promise.all(commits.map((c) => c.durable));
    await store.indexed();
    const items = applied.flat();
    expect(items).toHaveLength(1);
    const [item] = items as [IndexItem];
    expect(item.records).toEqual(commits.flatMap((c) => c.records));
    // One chunk per append; parsed, they are the records; together, the bytes of the file.
    expect(item.lines).toHaveLength(2);
    const text = item.lines!.map((l) => Buffer.from(l).toString("utf8")).join("\n");
    // (As JSON has them: the test events' nostr-tools symbol is not data.)
    expect(text.split("\n").map((l) => JSON.parse(l) as unknown)).toEqual(JSON.parse(JSON.stringify(item.records)));
    expect(`${text}\n`).toBe(readFileSync(new LogLayout(dir).logPath(root.id, false), "utf8"));
    await close();
  });
});

describe("ConversationStore: a log a crash left empty", () => {
  it("callers that ask for it at once all get one new aggregate, and their records follow each other", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const root = p.root(p.owner, "its first line never written");
    const reply = p.reply(p.owner, root, "a reply");
    const layout = new LogLayout(dir);
    // Another conversation makes the directory; the empty file is what a kill between the flush's
    // O_EXCL open and its write leaves.
    let log = new FileConversationLog(dir);
    let index = new SqliteIndex({ path: join(dir, "index.sqlite") });
    let store = new ConversationStore({ log, index });
    await store.init();
    const other = p.root(p.owner, "another");
    await store.commit(await store.getOrCreate(other.id, p.info.coordinate), [{ t: "event", at: 1, ev: other, origin: "relay" }]).durable;
    await store.indexed();
    await log.close();
    index.close();
    writeFileSync(layout.logPath(root.id, false), "", { mode: 0o600 });

    log = new FileConversationLog(dir);
    index = new SqliteIndex({ path: join(dir, "index.sqlite") });
    store = new ConversationStore({ log, index });
    await store.init();
    expect(store.has(root.id)).toBe(true);
    const [a, b] = await Promise.all([store.getOrCreate(root.id, p.info.coordinate), store.getOrCreate(root.id, p.info.coordinate)]);
    expect(a).toBe(b);
    await store.commit(a, [{ t: "event", at: 2, ev: root, origin: "relay" }]).durable;
    await store.commit(b, [{ t: "event", at: 3, ev: reply, origin: "relay" }]).durable;
    expect((await log.readWhole(root.id)).records.map((r) => r.n)).toEqual([1, 2]);
    await store.indexed();
    await log.close();
    index.close();
  });
});
