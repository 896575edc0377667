// Named failures of the file log. Callers tell them apart by class (or `code`) to decide
// whether to retry, report the conversation as damaged, or stop.

export class LogError extends Error {
  override name = "LogError";
  constructor(message: string, readonly code: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Not 64 lowercase hex characters: refused before it can become part of a path. */
export class InvalidIdError extends LogError {
  override name = "InvalidIdError";
  constructor(id: unknown) {
    super(`invalid conversation id ${JSON.stringify(String(id)).slice(0, 80)}: expected 64 lowercase hex characters`, "invalid_id");
  }
}

/** Records that cannot go into the log as given (no integer `n`, or `n` not increasing). */
export class InvalidRecordError extends LogError {
  override name = "InvalidRecordError";
  constructor(readonly conversationId: string, detail: string) {
    super(`cannot append to ${conversationId}: ${detail}`, "invalid_record");
  }
}

/** No line of the log file parses. It was moved whole to quarantine, so nothing in it is lost. */
export class CorruptLogError extends LogError {
  override name = "CorruptLogError";
  constructor(readonly conversationId: string, readonly detail: string, readonly quarantinedTo: string | undefined) {
    super(`conversation log ${conversationId} is corrupt (${detail})${quarantinedTo ? `; moved to ${quarantinedTo}` : ""}`, "corrupt_log");
  }
}

/** A write or fsync failed (ENOSPC, EIO, …). The records were not acknowledged and the file was
 * cut back to its last good size, so no half line is left for a later append to glue onto. */
export class LogWriteError extends LogError {
  override name = "LogWriteError";
  constructor(readonly conversationId: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`append to ${conversationId} failed: ${why}`, "write_failed", { cause });
  }
}

export class LogClosedError extends LogError {
  override name = "LogClosedError";
  constructor() {
    super("the conversation log is closed", "closed");
  }
}
