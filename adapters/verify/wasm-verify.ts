// Id and signature check of one event with nostr-wasm (libsecp256k1 compiled to wasm), about
// 4× faster than nostr-tools' pure-JS path. Used directly for small cases and by each worker of
// the VerifierPool.
//
// nostr-wasm is called directly rather than through `nostr-tools/wasm` (setNostrWasm +
// verifyEvent): that wrapper folds every failure into `false` and stamps a symbol on the event,
// and we need to tell a wrong id from a wrong signature.

import { initNostrWasm } from "nostr-wasm";
import type { NostrEvent } from "../../src/types.js";
import { formVerdict } from "./event-form.js";
import { jsVerdict } from "./js-verify.js";
import type { Verdict } from "./verify-protocol.js";

// Compiling the module takes ~60 ms, once per thread, when this file is first imported.
const nw = await initNostrWasm();

// nostr-wasm reports a failed check by throwing one of these; anything else is the library
// failing (its heap cannot grow past ~1 MB, so an event near that size aborts), not the event.
const WASM_VERDICTS: ReadonlyMap<string, Verdict> = new Map([
  ["id is invalid", "bad_id"],
  ["signature is invalid", "bad_signature"],
  ["pubkey is invalid", "bad_signature"],
]);

/** `ok`, `bad_id` (id ≠ sha256 of the NIP-01 serialization) or `bad_signature`. Never throws. */
export function wasmCheck(ev: NostrEvent): Verdict {
  const form = formVerdict(ev);
  if (form) return form;
  try {
    nw.verifyEvent(ev);
    return "ok";
  } catch (err) {
    // What the wasm heap cannot hold goes through the pure-JS path.
    return WASM_VERDICTS.get(err instanceof Error ? err.message : "") ?? jsVerdict(ev);
  }
}

/** True when the event's id and signature are both valid. */
export const wasmVerify = (ev: NostrEvent): boolean => wasmCheck(ev) === "ok";
