// Signs events with one secret key held in memory (loaded by the daemon from a 0600 file or
// the environment; this class never reads or logs it).

import { finalizeEvent, getPublicKey } from "nostr-tools/pure";
import type { Signer } from "../../src/ports.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";

export class InvalidSecretKeyError extends Error {
  override name = "InvalidSecretKeyError";
}

export class KeySigner implements Signer {
  readonly pubkey: string;
  private readonly secretKey: Uint8Array;

  constructor(secretKey: Uint8Array) {
    if (secretKey.length !== 32) throw new InvalidSecretKeyError(`a secret key is 32 bytes, got ${secretKey.length}`);
    // Our own copy: a caller zeroing or reusing its buffer must not change who we sign as.
    this.secretKey = Uint8Array.from(secretKey);
    try {
      this.pubkey = getPublicKey(this.secretKey);
    } catch {
      throw new InvalidSecretKeyError("secret key is not a valid secp256k1 scalar");
    }
  }

  async sign(ev: UnsignedEvent): Promise<NostrEvent> {
    const signed = finalizeEvent(
      { kind: ev.kind, created_at: ev.created_at, tags: ev.tags, content: ev.content },
      this.secretKey,
    );
    return {
      id: signed.id,
      pubkey: signed.pubkey,
      created_at: signed.created_at,
      kind: signed.kind,
      tags: signed.tags,
      content: signed.content,
      sig: signed.sig,
    };
  }
}
