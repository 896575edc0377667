// Errors of the SQLite index. Each means this index file cannot be used as it is: a corrupt or
// newer one is deleted and rebuilt from the logs (the logs are the truth); a missing or older one
// only a read-write open (the daemon's) creates or migrates.

export class IndexError extends Error {
  override name = "IndexError";
}

/** The file was written by a newer tenexd (schema version above what this build knows). */
export class IndexSchemaTooNewError extends IndexError {
  override name = "IndexSchemaTooNewError";
  constructor(readonly path: string, readonly found: number, readonly supported: number) {
    super(`index ${path} has schema version ${found}, this build knows up to ${supported}: rebuild it from the logs`);
  }
}

/** Opened read-only, the file has an older schema: only a read-write open migrates it. */
export class IndexSchemaTooOldError extends IndexError {
  override name = "IndexSchemaTooOldError";
  constructor(readonly path: string, readonly found: number, readonly supported: number) {
    super(`index ${path} has schema version ${found}, this build reads ${supported}: open it read-write once to migrate it`);
  }
}

/** Opened read-only, there is no file (a read-only open never creates one). */
export class IndexMissingError extends IndexError {
  override name = "IndexMissingError";
  constructor(readonly path: string) {
    super(`no index at ${path}`);
  }
}

/** The file is not a readable SQLite database (corrupt, truncated, or something else). */
export class IndexCorruptError extends IndexError {
  override name = "IndexCorruptError";
  constructor(readonly path: string, cause: unknown) {
    super(`index ${path} is unreadable (${cause instanceof Error ? cause.message : String(cause)}): rebuild it from the logs`, { cause });
  }
}
