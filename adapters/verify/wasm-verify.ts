// Id and signature check of one event with nostr-wasm (libsecp256k1 compiled to wasm), about
// 4× faster than nostr-tools' pure-JS path. Used directly for small cases and by each worker of
// the VerifierPool.
//
// nostr-wasm is called directly rather than through `nostr-tools/wasm` (setNostrWasm +
// verifyEvent): that wrapper folds every failure into `false` and stamps a symbol on the event,
// and we need to tell a wrong id from a wrong signature.

import { initNostrWasm } from "nostr-wasm";
import { getEventHash, verifyEvent as jsVerifyEvent } from "nostr-tools/pure";
import { HEX64, type NostrEvent } from "../../src/types.js";
import type { Verdict } from "./verify-protocol.js";

// Compiling the module takes ~60 ms, once per thread, when this file is first imported.
const nw = await initNostrWasm();

const SIG = /^[0-9a-f]{128}$/;

// nostr-wasm reports a failed check by throwing one of these; anything else is the library
// failing (its heap cannot grow past ~1 MB, so an event near that size aborts), not the event.
const WASM_VERDICTS: ReadonlyMap<string, Verdict> = new Map([
  ["id is invalid", "bad_id"],
  ["signature is invalid", "bad_signature"],
  ["pubkey is invalid", "bad_signature"],
]);

/** `ok`, `bad_id` (id ≠ sha256 of the NIP-01 serialization) or `bad_signature`. Never throws. */
export function wasmCheck(ev: NostrEvent): Verdict {
  // nostr-wasm parses hex leniently (uppercase, junk as 0): only the exact form may reach it.
  if (typeof ev.id !== "string" || !HEX64.test(ev.id)) return "bad_id";
  if (typeof ev.pubkey !== "string" || !HEX64.test(ev.pubkey) || typeof ev.sig !== "string" || !SIG.test(ev.sig)) {
    return "bad_signature";
  }
  try {
    nw.verifyEvent(ev);
    return "ok";
  } catch (err) {
    const verdict = WASM_VERDICTS.get(err instanceof Error ? err.message : "");
    return verdict ?? jsCheck(ev);
  }
}

/** True when the event's id and signature are both valid. */
export const wasmVerify = (ev: NostrEvent): boolean => wasmCheck(ev) === "ok";

// The pure-JS path, for what the wasm heap cannot hold. A fresh copy, because nostr-tools'
// verifyEvent trusts a verdict cached on the object under a symbol.
function jsCheck(ev: NostrEvent): Verdict {
  try {
    const plain = { id: ev.id, pubkey: ev.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content, sig: ev.sig };
    if (getEventHash(plain) !== ev.id) return "bad_id";
    return jsVerifyEvent(plain) ? "ok" : "bad_signature";
  } catch {
    return "bad_signature";
  }
}
