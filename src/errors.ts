// The few named errors of the domain. Adapters and the daemon add their own next to them.

/** Input that breaks a rule of the domain (bad tags, illegal transition request, …). */
export class DomainError extends Error {
  override name = "DomainError";
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

/** Something that must exist does not (conversation, agent, turn). */
export class NotFoundError extends DomainError {
  override name = "NotFoundError";
  constructor(what: string, id: string) {
    super(`${what} not found: ${id}`, "not_found");
  }
}
