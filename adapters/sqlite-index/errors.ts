// Errors of the SQLite index. Both mean the same thing to the daemon: this index file cannot
// be used as it is; delete it and rebuild from the logs (the logs are the truth).

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

/** The file is not a readable SQLite database (corrupt, truncated, or something else). */
export class IndexCorruptError extends IndexError {
  override name = "IndexCorruptError";
  constructor(readonly path: string, cause: unknown) {
    super(`index ${path} is unreadable (${cause instanceof Error ? cause.message : String(cause)}): rebuild it from the logs`, { cause });
  }
}
