// The daemon's announcements that are not conversation events (24133 operations status, 513
// metadata): signed by one key and sent straight to the relays, one after the other (a start and
// an end in the same second must reach clients in that order), never logged. Each has a key (the
// kind and the conversation): one still waiting when a newer one with its key comes is replaced
// by it, since only the latest state matters (a catch-up of a hundred new conversations, or a
// run that starts and ends at once, sends what is true now, not every step). One that no relay
// took (a connection lost in the middle of its AUTH, say) is tried again a few times, unless a
// newer one with its key came meanwhile: lost, a 24133 would show an agent at work long after it
// stopped. After the last try it is reported. Once the gateway is closed (the daemon stopping)
// what is left is dropped, not reported.

import { GatewayClosedError } from "../../../adapters/nostr/errors.js";
import type { RelayGateway, Signer } from "../../../src/ports.js";
import type { UnsignedEvent } from "../../../src/types.js";

// Seconds apart, so that a relay's reconnection (relay-reconnector.ts) has come in between.
const RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000];

export class SignedBroadcast {
  private last: Promise<unknown> = Promise.resolve();
  /** Announcements waiting to be sent, by key: the latest of each, and which try it is (0: the first). */
  private readonly waiting = new Map<string, { unsigned: UnsignedEvent; attempt: number }>();
  /** Per key, how many announcements were handed over: a retry of an older one is dropped. */
  private readonly generation = new Map<string, number>();

  constructor(
    private readonly gateway: RelayGateway,
    private readonly signer: Signer,
    private readonly onError: (err: unknown) => void,
    private readonly retryDelaysMs: readonly number[] = RETRY_DELAYS_MS,
  ) {}

  send(key: string, unsigned: UnsignedEvent): void {
    this.generation.set(key, (this.generation.get(key) ?? 0) + 1);
    this.enqueue(key, unsigned, 0);
  }

  /** Resolves once everything sent so far has gone out (or failed); retries still waiting are not awaited. */
  idle(): Promise<unknown> {
    return this.last;
  }

  private enqueue(key: string, unsigned: UnsignedEvent, attempt: number): void {
    const queued = this.waiting.has(key);
    this.waiting.set(key, { unsigned, attempt });
    if (queued) return;
    this.last = this.last.then(async () => {
      const next = this.waiting.get(key);
      this.waiting.delete(key);
      if (!next) return;
      const { unsigned: latest, attempt } = next;
      const generation = this.generation.get(key);
      try {
        await this.gateway.publish(await this.signer.sign(latest));
      } catch (err) {
        if (err instanceof GatewayClosedError) return;
        const delay = this.retryDelaysMs[attempt];
        if (delay === undefined) return this.onError(err);
        setTimeout(() => {
          // A newer announcement with this key was handed over since: it says what is true now.
          if (this.generation.get(key) === generation && !this.waiting.has(key)) this.enqueue(key, latest, attempt + 1);
        }, delay).unref();
      }
    });
  }
}
