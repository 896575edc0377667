// Errors from the API client and the offline reads, as CLI errors: the message as the daemon
// (or the index) gave it, a stable code, exit 2 for a request the user must change, the
// operator's faults' own codes (3-5: the daemon met a full or read-only disk), 1 otherwise.

import { DomainError, IndexUnavailableError } from "../../../src/errors.js";
import { ApiClientError, DaemonUnreachableError } from "../../front-desk/client/errors.js";
import { exitCodeOfApiCode } from "../../operator-faults.js";
import { CliError, EXIT } from "../errors.js";

const INVALID_STATUSES = new Set([400, 413]);

export function toCliError(err: unknown): unknown {
  if (err instanceof ApiClientError) {
    return new CliError(err.message, err.code, exitCodeOfApiCode(err.code) ?? (INVALID_STATUSES.has(err.status) ? EXIT.INVALID : EXIT.FAILURE));
  }
  if (err instanceof DaemonUnreachableError) return new CliError(err.message, err.code);
  if (err instanceof IndexUnavailableError) return new CliError(err.message, err.code);
  if (err instanceof DomainError) return new CliError(err.message, err.code, err.code === "not_found" ? EXIT.FAILURE : EXIT.INVALID);
  return err;
}

/** Runs `fn`, reporting what it throws as a CLI error. */
export async function cli<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toCliError(err);
  }
}
