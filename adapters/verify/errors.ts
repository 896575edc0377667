// Named failures of the verifier pool. None of them means "the signature is bad": a caller that
// gets one has no verdict and must not count the event as rejected for its signature.

export class VerifierError extends Error {
  override name = "VerifierError";
  constructor(message: string, readonly code: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The pool was closed before the event got a verdict. */
export class VerifierClosedError extends VerifierError {
  override name = "VerifierClosedError";
  constructor() {
    super("the verifier pool is closed", "closed");
  }
}

/** The batch's worker crashed twice (the first time it was retried on another worker). */
export class VerifyFailedError extends VerifierError {
  override name = "VerifyFailedError";
  constructor(readonly events: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`verification of a batch of ${events} events failed twice: ${why}`, "failed", { cause });
  }
}

/** Every worker kept crashing at start and was given up on: nothing can verify. */
export class VerifierUnavailableError extends VerifierError {
  override name = "VerifierUnavailableError";
  constructor() {
    super("no verifier worker is running (each crashed repeatedly)", "unavailable");
  }
}

/** The compiled worker is missing or older than its sources (running from .ts without a build). */
export class WorkerFileError extends VerifierError {
  override name = "WorkerFileError";
  constructor(detail: string) {
    super(`verifier worker: ${detail}; run \`npm run build\``, "worker_file");
  }
}

/** TENEXD_VERIFIER names no verifier (verifier-choice.ts); a configuration error (exit 2). */
export class VerifierChoiceError extends Error {
  override name = "VerifierChoiceError";
}
