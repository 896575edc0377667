// Brings a database to the latest schema: runs each missing migration in its own transaction
// and records its version in PRAGMA user_version, so a crash mid-way resumes where it stopped.

import type Database from "better-sqlite3";
import { IndexSchemaTooNewError } from "./errors.js";
import { MIGRATIONS, type Migration } from "./migrations/index.js";

export const schemaVersion = (db: Database.Database): number => db.pragma("user_version", { simple: true }) as number;

export function migrate(db: Database.Database, path: string, migrations: readonly Migration[] = MIGRATIONS): number {
  const current = schemaVersion(db);
  const latest = migrations.length > 0 ? migrations[migrations.length - 1]!.version : 0;
  if (current > latest) throw new IndexSchemaTooNewError(path, current, latest);
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.up);
      // PRAGMA takes no bound parameters; the version is an integer from our own table.
      db.pragma(`user_version = ${Math.trunc(m.version)}`);
    })();
  }
  return latest;
}
