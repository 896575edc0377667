// The daemon's announcements that are not conversation events (24133 operations status, 513
// metadata): signed by one key and sent straight to the relays, one after the other (a start and
// an end in the same second must reach clients in that order), never logged. A relay that
// refuses one is reported; the next announcement says it all again.

import type { RelayGateway, Signer } from "../../../src/ports.js";
import type { UnsignedEvent } from "../../../src/types.js";

export class SignedBroadcast {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly gateway: RelayGateway, private readonly signer: Signer, private readonly onError: (err: unknown) => void) {}

  send(unsigned: UnsignedEvent): void {
    this.last = this.last.then(async () => {
      try {
        await this.gateway.publish(await this.signer.sign(unsigned));
      } catch (err) {
        this.onError(err);
      }
    });
  }

  /** Resolves once everything sent so far has gone out (or failed). */
  idle(): Promise<unknown> {
    return this.last;
  }
}
