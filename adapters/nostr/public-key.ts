// The BIP-340 public key (x-only, hex) of a secret key: with bcrypto's native secp256k1 (the
// verifier's library) when it loads, else nostr-tools. nostr-tools' first derivation in a
// process builds noble's precomputed multiples of G: 57-75 ms of the main thread and 5-7 MB
// resident (measured here), which the daemon paid at every start for the few keys it reads.
// bcrypto is loaded at the first call, not at import: a CLI command that never derives a key
// does not load it.

import { getPublicKey } from "nostr-tools/pure";
import { loadNativeSchnorr, type NativeSchnorr } from "../verify/native-schnorr.js";

let native: NativeSchnorr | null | undefined;

/** Throws on a key that is not a secp256k1 secret key (32 bytes, 0 < k < n). */
export function publicKeyOf(secretKey: Uint8Array): string {
  if (native === undefined) {
    const loaded = loadNativeSchnorr();
    native = "schnorr" in loaded ? loaded.schnorr : null;
  }
  if (native === null || secretKey.length !== 32) return getPublicKey(secretKey);
  // bcrypto takes a Buffer: a copy, zeroed after.
  const key = Buffer.from(secretKey);
  try {
    return native.publicKeyCreate(key).toString("hex");
  } finally {
    key.fill(0);
  }
}
