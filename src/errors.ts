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

/** The daemon refused to publish an event of its own (no key for its author, or its checks refused it). */
export class PublishRefusedError extends Error {
  override name = "PublishRefusedError";
  constructor(readonly reason: string, detail: string) {
    super(`event refused before publication: ${reason} (${detail})`);
  }
}

/** The index cannot be read (missing, or a schema this build does not read). */
export class IndexUnavailableError extends Error {
  override name = "IndexUnavailableError";
  readonly code = "index_unavailable";
}
