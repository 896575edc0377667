// Every error the API answers with: `{ "error": { "code", "message" } }` and a status code that
// says whose fault it is. Errors thrown by the services are mapped here, in one place.

import { z } from "zod";
import { OutgoingLimitError } from "../../../src/agent-events/index.js";
import { DomainError, IndexUnavailableError, NotFoundError, PublishRefusedError } from "../../../src/errors.js";
import { operatorFaultOf } from "../../operator-faults.js";
import { formatZodError } from "./zod-message.js";
import { ConflictError } from "../actions/errors.js";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string };
}

// Refusals the inbound checks give for the size of an event (src/edge/reject-reason.ts).
const SIZE_REASONS = /too_large|too_many/;

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof z.ZodError) return new ApiError(400, "bad_request", formatZodError(err));
  if (err instanceof OutgoingLimitError) return new ApiError(413, "too_large", err.message);
  if (err instanceof NotFoundError) return new ApiError(404, "not_found", err.message);
  if (err instanceof ConflictError) return new ApiError(409, "conflict", err.message);
  if (err instanceof DomainError) return new ApiError(400, err.code, err.message);
  if (err instanceof PublishRefusedError) {
    return new ApiError(SIZE_REASONS.test(err.reason) ? 413 : 400, err.reason, err.message);
  }
  // A read-only or full disk: the operator's to fix, said as such (503, 507), never a 500.
  const operator = operatorFaultOf(err);
  if (operator) return new ApiError(operator.status, operator.code, operator.message);
  if (err instanceof IndexUnavailableError) return new ApiError(500, err.code, err.message);
  return new ApiError(500, "internal", `internal error: ${err instanceof Error ? err.message : String(err)}`);
}
