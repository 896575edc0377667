// Id and signature check of one event with bcrypto's native BIP-340 (libsecp256k1 compiled at
// install), ~4.7× nostr-wasm per core (docs/architecture.md, "Signature checks"). bcrypto is an
// optional dependency: when it did not build, or loaded only its pure-JS backend (slower than
// nostr-wasm), `loadNativeCheck` says why and the daemon falls back to nostr-wasm
// (verifier-choice.ts). The id is hashed with node:crypto, the serialization nostr-wasm hashes.

import { createHash } from "node:crypto";
import type { NostrEvent } from "../../src/types.js";
import { formVerdict } from "./js-verify.js";
import { loadNativeSchnorr, type NativeSchnorr } from "./native-schnorr.js";
import type { Verdict } from "./verify-protocol.js";

export type Check = (ev: NostrEvent) => Verdict;

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
