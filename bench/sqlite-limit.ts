// The machine's limit for SQLite inserts: message-like rows (hex ids, a ~160-character preview,
// the same keys and index as the index's messages table) into a fresh file, WAL and
// synchronous=NORMAL like the index, one transaction per 1,000 rows. The index's own build rate
// is read against this figure.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Figure } from "./figure.js";

export const CREATE_TABLE = `
  CREATE TABLE messages (
    conversation_id TEXT NOT NULL, n INTEGER NOT NULL, event_id TEXT NOT NULL UNIQUE,
    author TEXT NOT NULL, kind INTEGER NOT NULL, created_at INTEGER NOT NULL, preview TEXT NOT NULL,
    size INTEGER NOT NULL, PRIMARY KEY (conversation_id, n));
  CREATE INDEX messages_by_time ON messages (created_at);`;
export const INSERT_ROW = `
  INSERT INTO messages (conversation_id, n, event_id, author, kind, created_at, preview, size)
  VALUES (?, ?, ?, ?, 1111, ?, ?, 800)`;

const hex = () => randomBytes(32).toString("hex");
const PREVIEW = "lorem ipsum dolor sit amet ".repeat(6).slice(0, 160);

/** Rows per second; `rows` inserted in transactions of `batch`. */
export function measureSqliteInsertLimit(rows = 200_000, batch = 1000): number {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-sqlite-limit-"));
  const db = new Database(join(dir, "limit.sqlite"));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(CREATE_TABLE);
    const insert = db.prepare<[string, number, string, string, number, string]>(INSERT_ROW);
    const authors = Array.from({ length: 10 }, hex);
    const conversations = Array.from({ length: rows / batch }, hex);
    // Ids are made before the clock starts: the figure is SQLite's, not randomBytes'.
    const ids = Array.from({ length: batch }, hex);
    const insertBatch = db.transaction((b: number) => {
      for (let i = 0; i < batch; i++) {
        insert.run(conversations[b]!, i + 1, `${ids[i]!.slice(0, 56)}${(b * batch + i).toString(16).padStart(8, "0")}`,
          authors[i % authors.length]!, 1_700_000_000 + b * batch + i, PREVIEW);
      }
    });
    const start = performance.now();
    for (let b = 0; b < rows / batch; b++) insertBatch(b);
    return rows / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchSqliteLimit(): Promise<Figure[]> {
  const rps = measureSqliteInsertLimit();
  return [{
    name: "sqlite_insert_limit_rps", value: Math.round(rps), unit: "rows/s",
    note: "message-like rows, fresh file, WAL + synchronous=NORMAL, one transaction per 1,000 rows",
  }];
}
