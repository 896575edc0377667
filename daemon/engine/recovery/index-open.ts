// Opening the index: it is derived, so one that cannot be used (a newer schema from a later
// tenexd, a corrupt file) is moved aside and rebuilt from the logs instead of stopping the daemon.

import { existsSync, renameSync } from "node:fs";
import { IndexCorruptError, IndexSchemaTooNewError, SqliteIndex, type SqliteIndexOptions } from "../../../adapters/sqlite-index/index.js";

export interface OpenedIndex {
  index: SqliteIndex;
  /** True when the index is new (missing or moved aside): it must be rebuilt from the logs. */
  fresh: boolean;
  movedAside?: { path: string; reason: string };
}

export function openIndex(opts: SqliteIndexOptions, now: number): OpenedIndex {
  const existed = existsSync(opts.path);
  try {
    return { index: new SqliteIndex(opts), fresh: !existed };
  } catch (err) {
    if (!(err instanceof IndexSchemaTooNewError || err instanceof IndexCorruptError)) throw err;
    const aside = `${opts.path}.unusable-${now}`;
    renameSync(opts.path, aside);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(opts.path + suffix)) renameSync(opts.path + suffix, aside + suffix);
    return { index: new SqliteIndex(opts), fresh: true, movedAside: { path: aside, reason: err.message } };
  }
}
