// The daemon's announcements that are not conversation events (24133 operations status, 513
// metadata): signed by one key and sent straight to the relays, one after the other (a start and
// an end in the same second must reach clients in that order), never logged. Each has a key (the
// kind and the conversation): one still waiting when a newer one with its key comes is replaced
// by it, since only the latest state matters (a catch-up of a hundred new conversations, or a
// run that starts and ends at once, sends what is true now, not every step). A relay that refuses
// one is reported; the next announcement says it all again. Once the gateway is closed (the
// daemon stopping) what is left is dropped, not reported.

import { GatewayClosedError } from "../../../adapters/nostr/errors.js";
import type { RelayGateway, Signer } from "../../../src/ports.js";
import type { UnsignedEvent } from "../../../src/types.js";

export class SignedBroadcast {
  private last: Promise<unknown> = Promise.resolve();
  /** Announcements waiting to be sent, by key: the latest of each. */
  private readonly waiting = new Map<string, UnsignedEvent>();

  constructor(private readonly gateway: RelayGateway, private readonly signer: Signer, private readonly onError: (err: unknown) => void) {}

  send(key: string, unsigned: UnsignedEvent): void {
    const queued = this.waiting.has(key);
    this.waiting.set(key, unsigned);
    if (queued) return;
    this.last = this.last.then(async () => {
      const latest = this.waiting.get(key);
      this.waiting.delete(key);
      if (!latest) return;
      try {
        await this.gateway.publish(await this.signer.sign(latest));
      } catch (err) {
        if (!(err instanceof GatewayClosedError)) this.onError(err);
      }
    });
  }

  /** Resolves once everything sent so far has gone out (or failed). */
  idle(): Promise<unknown> {
    return this.last;
  }
}
