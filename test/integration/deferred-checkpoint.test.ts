// The index thread's own WAL checkpoints (adapters/sqlite-index/deferred-checkpoint.ts), on a
// real SQLite file: none inside a commit, one after an answer once enough was written, none while
// a transaction is held open, and one before the connection closes.

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DeferredCheckpoint } from "../../adapters/sqlite-index/deferred-checkpoint.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function wal() {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-ckpt-"));
  dirs.push(dir);
  const path = join(dir, "index.sqlite");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (x TEXT)");
  const insert = db.prepare("INSERT INTO t VALUES (?)");
  // Rows of ~1 KB, four to a 4 KB page: 6,000 are ~1,500 pages, past SQLite's own 1,000-page threshold.
  const write = db.transaction((n: number) => {
    for (let i = 0; i < n; i++) insert.run("x".repeat(1_000));
  });
  // Pages reach the database file only by a checkpoint.
  const fileSize = () => statSync(path).size;
  return { db, write, fileSize };
}

const nextTurn = () => new Promise((r) => setImmediate(r));

describe("DeferredCheckpoint", () => {
  it("checkpoints after the answer once enough was written, never inside the commit", async () => {
    const { db, write, fileSize } = wal();
    let busy = false;
    const ckpt = new DeferredCheckpoint(db, () => busy, 1_000);
    const empty = fileSize();
    write(6_000);
    ckpt.wrote(6_000);
    expect(fileSize()).toBe(empty); // the commit did not checkpoint
    busy = true;
    ckpt.afterAnswer();
    await nextTurn();
    expect(fileSize()).toBe(empty); // a transaction held open: not now
    busy = false;
    ckpt.afterAnswer();
    await nextTurn();
    expect(fileSize()).toBeGreaterThan(5_000_000);
    expect(ckpt.lastError).toBeUndefined();
    db.close();
  });

  it("waits for enough records, and checkpoints what is left before the connection closes", async () => {
    const { db, write, fileSize } = wal();
    const ckpt = new DeferredCheckpoint(db, () => false, 1_000);
    const empty = fileSize();
    write(500);
    ckpt.wrote(500);
    ckpt.afterAnswer();
    await nextTurn();
    expect(fileSize()).toBe(empty);
    ckpt.beforeClose();
    expect(fileSize()).toBeGreaterThan(400_000);
    db.close();
  });
});
