// Id and signature check of one event with nostr-tools' pure-JS secp256k1, about 4× slower than
// nostr-wasm (wasm-verify.ts) and with the same verdicts. Used for what nostr-wasm's heap cannot
// hold, and by the on-demand verifier for the few checks made while nostr-wasm is still loading
// (it is loaded on first use): those are answered at once, in arrival order, as before.

import { getEventHash, verifyEvent } from "nostr-tools/pure";
import type { NostrEvent } from "../../src/types.js";
import { formVerdict } from "./event-form.js";
import type { Verdict } from "./verify-protocol.js";

/** `ok`, `bad_id` (id ≠ sha256 of the NIP-01 serialization) or `bad_signature`. Never throws. */
export function jsCheck(ev: NostrEvent): Verdict {
  return formVerdict(ev) ?? jsVerdict(ev);
}

/**
 * The check itself, on a fresh copy: nostr-tools' verifyEvent trusts a verdict cached on the
 * object under a symbol.
 */
export function jsVerdict(ev: NostrEvent): Verdict {
  try {
    const plain = { id: ev.id, pubkey: ev.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content, sig: ev.sig };
    if (getEventHash(plain) !== ev.id) return "bad_id";
    return verifyEvent(plain) ? "ok" : "bad_signature";
  } catch {
    return "bad_signature";
  }
}
