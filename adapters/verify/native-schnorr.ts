// bcrypto's BIP-340 (libsecp256k1, compiled at install) as the daemon uses it: to verify
// (native-verify.ts), to sign (adapters/nostr/key-signer.ts) and to derive public keys
// (adapters/nostr/public-key.ts). Its own module, without node:crypto, so that what only derives
// a key (the CLI's config loading) does not load more than bcrypto.

import { createRequire } from "node:module";

export interface NativeSchnorr {
  /** 2 when libsecp256k1 is bound natively; 0 or 1 for bcrypto's JS backends. */
  native: number;
  verify(msg: Buffer, sig: Buffer, key: Buffer): boolean;
  /** BIP-340, with 32 fresh random bytes of auxiliary data when `aux` is left out. */
  sign(msg: Buffer, key: Buffer, aux?: Buffer): Buffer;
  /** The x-only public key of a secret key; throws on one that is not in 0 < k < n. */
  publicKeyCreate(key: Buffer): Buffer;
}

/** bcrypto's BIP-340 bound to libsecp256k1, or why it cannot be had here. */
export function loadNativeSchnorr(): { schnorr: NativeSchnorr } | { reason: string } {
  let schnorr: NativeSchnorr;
  try {
    schnorr = createRequire(import.meta.url)("bcrypto/lib/schnorr") as NativeSchnorr;
  } catch (err) {
    return { reason: `bcrypto is not installed or did not build (${err instanceof Error ? err.message.split("\n")[0] : String(err)})` };
  }
  if (schnorr.native !== 2) return { reason: `bcrypto loaded without its native backend (native=${schnorr.native})` };
  return { schnorr };
}
