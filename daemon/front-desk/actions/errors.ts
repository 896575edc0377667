// Errors of the operations the API and the CLI share. The API turns each into a status code
// (daemon/api/errors.ts); the CLI prints the message. Domain errors (src/errors.ts) pass through.

import { DomainError } from "../../../src/errors.js";

/** The request is fine but the state does not allow it (e.g. replying in a closed conversation). */
export class ConflictError extends DomainError {
  override name = "ConflictError";
  constructor(message: string) {
    super(message, "conflict");
  }
}
