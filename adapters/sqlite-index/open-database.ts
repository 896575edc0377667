// Opens the index file. Read-write (the daemon's writer): created when missing, WAL,
// synchronous=NORMAL, schema migrated. NORMAL is enough: the log is the durable truth, and a
// tail the index lost in a crash is re-applied from the log at start (indexedPositions).
// Read-only (the readers, the CLI without a daemon): never created, migrated or written.

import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { ensurePrivateFile } from "../state-file/private-file.js";
import { IndexCorruptError, IndexMissingError, IndexSchemaTooNewError, IndexSchemaTooOldError } from "./errors.js";
import { migrate, schemaVersion } from "./migrate.js";
import { LATEST_VERSION } from "./migrations/index.js";

export function openDatabase(path: string): Database.Database {
  // Created here with mode 0600 (SQLite would make it 0644 less the umask); its -wal and -shm
  // files take the mode of the database file.
  ensurePrivateFile(path);
  const db = new Database(path);
  try {
    // synchronous first: the switch to WAL (the index is left in rollback mode at close, see
    // SqliteIndex.close) then costs ~1 ms instead of ~7 (measured on a 200,000-row file).
    db.pragma("synchronous = NORMAL");
    db.pragma("journal_mode = WAL");
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

/** An existing index, read-only, of exactly this build's schema (an older one it cannot migrate). */
export function openReadOnlyDatabase(path: string): Database.Database {
  if (!existsSync(path)) throw new IndexMissingError(path);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const found = schemaVersion(db);
    if (found > LATEST_VERSION) throw new IndexSchemaTooNewError(path, found, LATEST_VERSION);
    if (found < LATEST_VERSION) throw new IndexSchemaTooOldError(path, found, LATEST_VERSION);
    return db;
  } catch (err) {
    db?.close();
    if (isCorruption(err)) throw new IndexCorruptError(path, err);
    throw err;
  }
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}
