// Signs events with one secret key held in memory (loaded by the daemon from a 0600 file or
// the environment; this class never reads or logs it).

import { finalizeEvent } from "nostr-tools/pure";
import type { Signer } from "../../src/ports.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";
import { loadNativeSchnorr, type NativeSchnorr } from "../verify/native-schnorr.js";
import { eventHash } from "../verify/native-verify.js";
import { publicKeyOf } from "./public-key.js";

// Signing with nostr-tools' pure-JS secp256k1 cost ~1 ms of the main thread an event (more under
// load): every agent's answer, every 513 and 24133. With bcrypto's native BIP-340 (the verifier's
// library, docs/architecture.md) it is ~0.05 ms; where bcrypto did not build, nostr-tools signs.
const loaded = loadNativeSchnorr();
const native: NativeSchnorr | undefined = "schnorr" in loaded ? loaded.schnorr : undefined;

export class InvalidSecretKeyError extends Error {
  override name = "InvalidSecretKeyError";
}

export class KeySigner implements Signer {
  /** Which secp256k1 signs (status and tests). */
  static readonly backend: "bcrypto-native" | "nostr-tools" = native ? "bcrypto-native" : "nostr-tools";
  readonly pubkey: string;
  private readonly secretKey: Uint8Array;

  constructor(secretKey: Uint8Array) {
    if (secretKey.length !== 32) throw new InvalidSecretKeyError(`a secret key is 32 bytes, got ${secretKey.length}`);
    // Our own copy: a caller zeroing or reusing its buffer must not change who we sign as.
    this.secretKey = Uint8Array.from(secretKey);
    try {
      this.pubkey = publicKeyOf(this.secretKey);
    } catch {
      throw new InvalidSecretKeyError("secret key is not a valid secp256k1 scalar");
    }
  }

  async sign(ev: UnsignedEvent): Promise<NostrEvent> {
    if (native) {
      const unsigned = { pubkey: this.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content };
      const id = eventHash(unsigned);
      const key = Buffer.from(this.secretKey);
      try {
        return { id, ...unsigned, sig: native.sign(Buffer.from(id, "hex"), key).toString("hex") };
      } finally {
        key.fill(0);
      }
    }
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
