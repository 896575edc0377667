// Signs with a key held in memory (real Schnorr signatures, via nostr-tools).

import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import type { Signer } from "../../src/ports.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";

export class MemorySigner implements Signer {
  readonly pubkey: string;
  private readonly sk: Uint8Array;

  constructor(sk: Uint8Array = generateSecretKey()) {
    this.sk = sk;
    this.pubkey = getPublicKey(sk);
  }

  async sign(ev: UnsignedEvent): Promise<NostrEvent> {
    const signed = finalizeEvent({ kind: ev.kind, created_at: ev.created_at, tags: ev.tags, content: ev.content }, this.sk);
    return {
      id: signed.id, pubkey: signed.pubkey, created_at: signed.created_at, kind: signed.kind,
      tags: signed.tags, content: signed.content, sig: signed.sig,
    };
  }
}
