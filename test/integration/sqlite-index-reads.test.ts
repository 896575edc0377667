// The index opened read-only (the reads of the API, and of the CLI without a daemon): it never
// creates, migrates or writes the file, refuses what it cannot read, serves every read query,
// and decides NIP-40 expiry exactly as the domain does (src/messaging/unread.ts).

import { createHash } from "node:crypto";
import fs from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import {
  IndexCorruptError, IndexMissingError, IndexSchemaTooNewError, IndexSchemaTooOldError,
} from "../../adapters/sqlite-index/errors.js";
import { openIndexReadOnly, type IndexReader } from "../../adapters/sqlite-index/index-reader.js";
import { migrate } from "../../adapters/sqlite-index/migrate.js";
import { LATEST_VERSION, MIGRATIONS } from "../../adapters/sqlite-index/migrations/index.js";
import { isExpired } from "../../src/messaging/unread.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject, type TestKey } from "../helpers/events.js";
import { applyIncrementally, closeTestIndexes, LogFixture, newTestIndex, scenario, tempIndexPath } from "./sqlite-index-helpers.js";

const readers: IndexReader[] = [];
const openReader = (path: string) => {
  const reader = openIndexReadOnly(path);
  readers.push(reader);
  return reader;
};
afterEach(() => {
  for (const r of readers.splice(0)) r.close();
  closeTestIndexes();
});

const T0 = 1_700_000_000;
const NOW = (T0 + 3600) * 1000;
const sha256 = (path: string) => createHash("sha256").update(fs.readFileSync(path)).digest("hex");
const userVersion = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma("user_version", { simple: true });
  } finally {
    db.close();
  }
};

/** The scenario's two conversations in an index file, closed (checkpointed) as a stopped daemon leaves it. */
function writtenIndex() {
  const s = scenario(T0);
  const index = newTestIndex();
  applyIncrementally(index, s.logs);
  index.close();
  return { ...s, path: index.path };
}

describe("openIndexReadOnly", () => {
  it("serves the reads without writing a byte of the file", () => {
    const { path, user, planner, coder, logs, events } = writtenIndex();
    const before = sha256(path);
    const reader = openReader(path);

    expect(reader.conversations.list({ now: NOW, limit: 10, offset: 0 }).items.map((c) => c.id)).toEqual([logs[0]!.id, logs[1]!.id]);
    expect(reader.conversations.list({ q: "FIXED", now: NOW, limit: 10, offset: 0 }).items.map((c) => c.title)).toEqual(["Fix the flaky test"]);
    expect(reader.conversations.get(logs[1]!.id)).toMatchObject({ seq: 2, status: "closed", archived: true, messageCount: 2 });

    const a1 = reader.messages.get(events.a1.id)!;
    expect(a1).toMatchObject({ conversationId: logs[0]!.id, conversationSeq: 1, author: planner.pubkey, priority: "high", createdAt: T0 + 60 });
    expect(reader.messages.recipientsOf(a1.conversationId, a1.n)).toEqual(
      [{ recipient: user.pubkey, unread: false }, { recipient: coder.pubkey, unread: true }].sort((x, y) => x.recipient.localeCompare(y.recipient)),
    );
    // Unread for the coder, most urgent first; the unread walk gives the same rows as the search.
    const search = reader.messages.list({ recipient: coder.pubkey, unread: true, order: "priority", now: NOW, limit: 10, offset: 0 });
    expect(search.items.map((m) => m.eventId)).toEqual([events.a3.id, events.a1.id, events.rootB.id]);
    expect(reader.unread.unreadList(coder.pubkey, { now: NOW })).toEqual(search);
    expect(reader.messages.list({ author: coder.pubkey, order: "asc", now: NOW, includeExpired: true, limit: 10, offset: 0 }).items
      .map((m) => m.eventId)).toEqual([events.b1.id, events.a2.id]);

    expect(reader.aliases.conversationSeqOf(logs[1]!.id)).toBe(2);
    expect(reader.aliases.conversationsStartingWith(logs[0]!.id.slice(0, 8))).toEqual([logs[0]!.id]);
    const where = reader.aliases.messageOf(events.a3.id)!;
    expect(where).toMatchObject({ conversationId: logs[0]!.id, priority: "critical" });
    expect(reader.aliases.messageAt(where.seq)).toBe(events.a3.id);
    expect(reader.views.viewsOf(logs[0]!.id)).toContainEqual({ agent: coder.pubkey, cursor: 12, read: 0 });
    expect(reader.views.acksOf(logs[0]!.id)).toEqual([{ agent: planner.pubkey, eventId: events.a2.id }]);
    expect(reader.views.lastMessageN(logs[0]!.id)).toBe(reader.messages.get(events.a3.id)!.n);
    expect(reader.direct.candidatesFor(coder.pubkey, user.pubkey)).toEqual([{ id: logs[1]!.id, status: "closed" }]);

    reader.close();
    expect(sha256(path)).toBe(before);
  });

  it("refuses a missing file, and does not create it", () => {
    const path = tempIndexPath();
    expect(() => openReader(path)).toThrow(IndexMissingError);
    expect(fs.existsSync(path)).toBe(false);
  });

  it("refuses an older schema and leaves it unmigrated (only the daemon migrates)", () => {
    const path = tempIndexPath();
    const db = new Database(path);
    migrate(db, path, MIGRATIONS.slice(0, -1));
    db.close();
    expect(() => openReader(path)).toThrow(IndexSchemaTooOldError);
    expect(() => openReader(path)).toThrow(`schema version ${LATEST_VERSION - 1}, this build reads ${LATEST_VERSION}`);
    expect(userVersion(path)).toBe(LATEST_VERSION - 1);
  });

  it("refuses a newer schema, and a file that is not a database", () => {
    const { path } = writtenIndex();
    const db = new Database(path);
    db.pragma(`user_version = ${LATEST_VERSION + 1}`);
    db.close();
    expect(() => openReader(path)).toThrow(IndexSchemaTooNewError);

    const garbage = tempIndexPath();
    fs.writeFileSync(garbage, "not a database, ".repeat(512));
    expect(() => openReader(garbage)).toThrow(IndexCorruptError);
  });
});

describe("NIP-40 expiry in the index", () => {
  it("every read query hides a message from its expiration second on, as isExpired does", () => {
    const p = testProject({ agents: ["planner", "coder"] });
    const { planner, coder } = p.agents as Record<"planner" | "coder", TestKey>;
    const expiresAt = T0 + 100;
    const expiring: string[][] = [["expiration", String(expiresAt)]];
    const rootA = p.root(p.owner, "Ship the release", [planner.pubkey], [], T0);
    const a = new LogFixture(rootA.id);
    a.event(rootA);
    const brief = p.reply(planner, rootA, "only today", [coder.pubkey], expiring, rootA, T0 + 1);
    a.event(brief);
    a.event(p.reply(planner, rootA, "forever", [coder.pubkey], [], rootA, T0 + 2));
    const rootB = p.root(p.owner, "Short-lived topic", [coder.pubkey], expiring, T0 + 3);
    const b = new LogFixture(rootB.id);
    b.event(rootB);
    const index = newTestIndex();
    index.apply(a.conv, a.records);
    index.apply(b.conv, b.records);
    const reader = openReader(index.path);
    const toCoder: NostrEvent[] = [...a.conv.events.slice(1), ...b.conv.events].map((e) => e.ev);

    for (const nowSecs of [expiresAt - 1, expiresAt, expiresAt + 1]) {
      const now = nowSecs * 1000;
      const live = toCoder.filter((ev) => !isExpired(ev.tags, nowSecs)).map((ev) => ev.id);
      const ids = (items: { eventId: string }[]) => items.map((m) => m.eventId).sort();
      expect(live.length, `at ${nowSecs}`).toBe(nowSecs < expiresAt ? 3 : 1);

      expect(index.unreadCount(coder.pubkey, now)).toBe(live.length);
      expect(ids(index.unreadList(coder.pubkey, { now }).items)).toEqual([...live].sort());
      expect(ids(index.inbox(coder.pubkey, { now }).items)).toEqual([...live].sort());
      expect(index.inbox(coder.pubkey, { now }).conversations.map((c) => c.conversationId).sort())
        .toEqual([...new Set([rootA.id, ...(live.includes(rootB.id) ? [rootB.id] : [])])].sort());
      expect(index.stats({ now }).unread.byAgent[coder.pubkey]).toBe(live.length);
      expect(reader.unread.unreadCount(coder.pubkey, now)).toBe(live.length);
      expect(ids(reader.messages.list({ recipient: coder.pubkey, now, order: "asc", limit: 10, offset: 0 }).items)).toEqual([...live].sort());
      const listed = reader.conversations.list({ now, limit: 10, offset: 0 }).items.map((c) => c.id);
      expect(listed.includes(rootB.id)).toBe(!isExpired(rootB.tags, nowSecs));
      const found = reader.conversations.list({ q: "only today", now, limit: 10, offset: 0 }).items.map((c) => c.id);
      expect(found).toEqual(isExpired(brief.tags, nowSecs) ? [] : [rootA.id]);
    }
  });
});
