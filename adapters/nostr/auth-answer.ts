// The client half of NIP-42 on one connection: answers a relay's AUTH challenge with a signed
// kind 22242 event and tracks the relay's OK for it, so a request the relay refused with
// `auth-required:` can be sent again once it has accepted.

import { authEventTemplate } from "../../src/relay-guard/nip42.js";
import type { Signer } from "../../src/ports.js";

export type AuthOutcome = { accepted: true } | { accepted: false; reason: string };

export interface AuthAnswerHooks {
  onAsked(): void;
  onAnswered(outcome: AuthOutcome): void;
}

export class AuthAnswer {
  private pendingId: string | undefined;
  private outcome: AuthOutcome | undefined;
  private readonly waiters = new Set<(o: AuthOutcome | undefined) => void>();

  constructor(private readonly relayUrl: string, private readonly signer: Signer | undefined, private readonly hooks: AuthAnswerHooks) {}

  get accepted(): boolean {
    return this.outcome?.accepted === true;
  }

  /** A challenge from the relay: signs and sends the answer (when there is a key to answer with). */
  async challenged(challenge: string, send: (frame: string) => void, nowSecs: number): Promise<void> {
    this.hooks.onAsked();
    // One answer in flight at a time: a relay sending challenge after challenge gets no more signing.
    if (this.pendingId !== undefined) return;
    if (!this.signer) {
      this.settle({ accepted: false, reason: "no key configured to answer AUTH" });
      return;
    }
    this.outcome = undefined;
    this.pendingId = "signing";
    const ev = await this.signer.sign(authEventTemplate(challenge, this.relayUrl, nowSecs));
    this.pendingId = ev.id;
    send(JSON.stringify(["AUTH", ev]));
  }

  /** An OK frame; true when it answered our AUTH. */
  ok(id: string, accepted: boolean, reason: string): boolean {
    if (id !== this.pendingId) return false;
    this.pendingId = undefined;
    this.settle(accepted ? { accepted: true } : { accepted: false, reason: reason || "refused" });
    this.hooks.onAnswered(this.outcome!);
    return true;
  }

  /** Resolves with the relay's answer to our AUTH, at once if it came already; undefined after `timeoutMs`. */
  settled(timeoutMs: number): Promise<AuthOutcome | undefined> {
    if (this.outcome) return Promise.resolve(this.outcome);
    return new Promise((resolve) => {
      const done = (o: AuthOutcome | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(o);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.waiters.add(done);
    });
  }

  /** The connection is gone: a new one gets a new challenge. */
  reset(): void {
    this.pendingId = undefined;
    this.outcome = undefined;
    for (const w of [...this.waiters]) w(undefined);
  }

  private settle(o: AuthOutcome): void {
    this.outcome = o;
    for (const w of [...this.waiters]) w(o);
  }
}
