// Id and signature check of one event with bcrypto's native BIP-340 (libsecp256k1 compiled at
// install), ~4.7× nostr-wasm per core (docs/architecture.md, "Signature checks"). bcrypto is an
// optional dependency: when it did not build, or loaded only its pure-JS backend (slower than
// nostr-wasm), `loadNativeCheck` says why and the daemon falls back to nostr-wasm
// (verifier-choice.ts). The id is hashed with node:crypto, the serialization nostr-wasm hashes.

import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { NostrEvent } from "../../src/types.js";
import { formVerdict } from "./js-verify.js";
import type { Verdict } from "./verify-protocol.js";

export type Check = (ev: NostrEvent) => Verdict;

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

/** The check, or why bcrypto's native backend cannot give one here. */
export function loadNativeCheck(): { check: Check } | { reason: string } {
  const loaded = loadNativeSchnorr();
  if ("reason" in loaded) return loaded;
  return { check: (ev) => nativeCheck(loaded.schnorr, ev) };
}

function nativeCheck(schnorr: NativeSchnorr, ev: NostrEvent): Verdict {
  const form = formVerdict(ev);
  if (form) return form;
  try {
    if (eventHash(ev) !== ev.id) return "bad_id";
    return schnorr.verify(Buffer.from(ev.id, "hex"), Buffer.from(ev.sig, "hex"), Buffer.from(ev.pubkey, "hex")) ? "ok" : "bad_signature";
  } catch {
    // Fields of the wrong type (the edge checks refuse them first): no verdict can vouch for it.
    return "bad_signature";
  }
}

/** sha256 of the NIP-01 serialization, as nostr-wasm writes it (pubkey and numbers unquoted by JSON). */
export function eventHash(ev: Omit<NostrEvent, "id" | "sig">): string {
  return createHash("sha256")
    .update(`[0,"${ev.pubkey}",${ev.created_at},${ev.kind},${JSON.stringify(ev.tags)},${JSON.stringify(ev.content)}]`)
    .digest("hex");
}
