// The index opened read-only for the reads (adapters/sqlite-index/index-reader.ts), its refusals
// said the way the API and the CLI report them: what is wrong and which tenexd command fixes it.

import {
  IndexCorruptError, IndexMissingError, IndexSchemaTooNewError, IndexSchemaTooOldError, openIndexReadOnly,
  type IndexReader,
} from "./index.js";
import { IndexUnavailableError } from "../../src/errors.js";

/** Throws IndexUnavailableError when there is no usable index at `path`. */
export function openIndexReader(path: string): IndexReader {
  try {
    return openIndexReadOnly(path);
  } catch (err) {
    throw unavailable(err);
  }
}

function unavailable(err: unknown): unknown {
  if (err instanceof IndexMissingError) {
    return new IndexUnavailableError(`no index at ${err.path}: start the daemon once, or run \`tenexd reindex\``);
  }
  if (err instanceof IndexSchemaTooOldError || err instanceof IndexSchemaTooNewError) {
    const fix = err instanceof IndexSchemaTooOldError ? "start the daemon once (it migrates the index)" : "use the tenexd that wrote it";
    return new IndexUnavailableError(
      `index ${err.path} has schema version ${err.found}, this tenexd reads ${err.supported}: ${fix}, or run \`tenexd reindex\``,
    );
  }
  if (err instanceof IndexCorruptError) {
    const why = err.cause instanceof Error ? err.cause.message : String(err.cause);
    return new IndexUnavailableError(`index ${err.path} is unreadable (${why}): start the daemon (it rebuilds the index), or run \`tenexd reindex\``);
  }
  return err;
}
