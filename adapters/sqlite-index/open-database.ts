// Opens (or creates) the index file: WAL, synchronous=NORMAL, schema migrated.
// NORMAL is enough: the log is the durable truth, and a tail the index lost in a crash is
// re-applied from the log at start (indexedPositions).

import Database from "better-sqlite3";
import { IndexCorruptError, IndexSchemaTooNewError } from "./errors.js";
import { migrate } from "./migrate.js";

export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("temp_store = MEMORY");
    // 16 MB of page cache: enough for the hot indexes, small beside the daemon's memory budget.
    db.pragma("cache_size = -16384");
    migrate(db, path);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof IndexSchemaTooNewError) throw err;
    if (isCorruption(err)) throw new IndexCorruptError(path, err);
    throw err;
  }
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}
