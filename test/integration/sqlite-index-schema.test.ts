// The index file's lifecycle: migrations, a newer schema, a deleted or corrupt file.

import fs from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { IndexCorruptError, IndexSchemaTooNewError } from "../../adapters/sqlite-index/errors.js";
import { migrate } from "../../adapters/sqlite-index/migrate.js";
import { LATEST_VERSION, MIGRATIONS } from "../../adapters/sqlite-index/migrations/index.js";
import { applyIncrementally, closeTestIndexes, dumpIndex, newTestIndex, scenario, tempIndexPath } from "./sqlite-index-helpers.js";

const openIndex = (path: string) => newTestIndex({ path });
afterEach(closeTestIndexes);

const userVersion = (path: string) => {
  const db = new Database(path);
  try {
    return db.pragma("user_version", { simple: true });
  } finally {
    db.close();
  }
};

/** Tables (or indexes, with `kind`) created by migrations after v1. */
const addedAfterV1 = (kind: "table" | "index" = "table") => {
  const db = new Database(":memory:");
  const names = () => db.prepare<[string], string>(`SELECT name FROM sqlite_master WHERE type = ?`).pluck().all(kind);
  migrate(db, ":memory:", MIGRATIONS.slice(0, 1));
  const v1 = new Set(names());
  migrate(db, ":memory:");
  const all = names();
  db.close();
  return all.filter((t) => !v1.has(t));
};
const tablesAddedAfterV1 = () => addedAfterV1("table");

describe("SqliteIndex schema", () => {
  it("a new file gets the latest schema version", () => {
    const path = tempIndexPath();
    expect(openIndex(path).schemaVersion).toBe(LATEST_VERSION);
    expect(LATEST_VERSION).toBe(MIGRATIONS.length);
  });

  it("an empty v1 file is migrated and usable", () => {
    const path = tempIndexPath();
    const db = new Database(path);
    migrate(db, path, MIGRATIONS.slice(0, 1));
    db.close();
    expect(userVersion(path)).toBe(1);

    const index = openIndex(path);
    expect(index.schemaVersion).toBe(LATEST_VERSION);
    const s = scenario();
    applyIncrementally(index, s.logs);
    expect(index.stats({ now: 0 }).messages.total).toBe(6);
  });

  it("a v1 file with data is migrated to exactly what a current index holds", () => {
    const s = scenario();
    const path = tempIndexPath();
    const current = openIndex(path);
    applyIncrementally(current, s.logs);
    current.close();
    const expected = dumpIndex(path);

    // Turn it into the file a v1 build would have left: v1 tables only, user_version 1.
    const added = tablesAddedAfterV1();
    expect(added.length).toBeGreaterThan(0);
    const db = new Database(path);
    // Indexes later migrations put on v1 tables go too (those on later tables go with them).
    for (const i of addedAfterV1("index")) db.exec(`DROP INDEX IF EXISTS ${i}`);
    // IF EXISTS: dropping an FTS5 table drops its storage tables with it.
    for (const t of added) db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.pragma("user_version = 1");
    db.close();
    expect(Object.keys(dumpIndex(path))).not.toContain("unread_counts");

    const migrated = openIndex(path);
    expect(migrated.schemaVersion).toBe(LATEST_VERSION);
    expect(dumpIndex(path)).toEqual(expected);
    expect(migrated.unreadCount(s.coder.pubkey, 0)).toBe(3); // a1, a3, rootB
  });

  it("a file from a newer build is refused with a named error and left untouched", () => {
    const path = tempIndexPath();
    openIndex(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${LATEST_VERSION + 5}`);
    db.close();

    let err: unknown;
    try {
      openIndex(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IndexSchemaTooNewError);
    expect((err as IndexSchemaTooNewError).found).toBe(LATEST_VERSION + 5);
    expect((err as IndexSchemaTooNewError).supported).toBe(LATEST_VERSION);
    expect((err as Error).message).toMatch(/rebuild/);
    expect(userVersion(path)).toBe(LATEST_VERSION + 5);
  });

  it("a deleted index file (its WAL left behind) comes back empty and usable", () => {
    const s = scenario();
    const path = tempIndexPath();
    const index = openIndex(path);
    applyIncrementally(index, s.logs);
    const wal = fs.readFileSync(`${path}-wal`);
    index.close();
    fs.rmSync(path);
    fs.writeFileSync(`${path}-wal`, wal);

    const fresh = openIndex(path);
    expect(fresh.indexedPositions().size).toBe(0);
    expect(fresh.schemaVersion).toBe(LATEST_VERSION);
    applyIncrementally(fresh, s.logs);
    expect(fresh.indexedPositions().size).toBe(2);
  });

  it("a file that is not a database is reported as corrupt", () => {
    const path = tempIndexPath();
    fs.writeFileSync(path, Buffer.alloc(8192, "garbage "));
    expect(() => openIndex(path)).toThrow(IndexCorruptError);
  });
});
