// Named failures of the relay gateway, so callers can tell "nobody took it" from a bug.

/** No relay accepted an event (OK true); `reasons` says why, per relay url. */
export class PublishRejectedError extends Error {
  override name = "PublishRejectedError";
  constructor(readonly eventId: string, readonly reasons: Readonly<Record<string, string>>) {
    super(
      `no relay accepted event ${eventId}: ` +
        (Object.entries(reasons).map(([url, why]) => `${url}: ${why}`).join("; ") || "no relays configured"),
    );
  }
}

/** The gateway was used after close(). */
export class GatewayClosedError extends Error {
  override name = "GatewayClosedError";
  constructor() {
    super("relay gateway is closed");
  }
}
