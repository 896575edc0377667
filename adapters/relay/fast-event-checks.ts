// The embedded relay checks an event's id and signature with the daemon's verifier
// (adapters/verify/verifier-choice.ts: bcrypto native, else nostr-wasm) instead of the library's
// pure-JS noble, which verified ~1,000 events a second on the relay's publish path, the agents'
// own events included. @nostr-relay/core calls the static `EventUtils.isIdValid` and
// `EventUtils.isSigValid` (through `EventUtils.validate`) for every EVENT and AUTH; those two are
// replaced, once per process, with the same verdicts. A test checks that both still exist
// upstream and that forged events are still refused.

import { EventUtils } from "@nostr-relay/common";
import type { NostrEvent } from "../../src/types.js";
import { eventHash } from "../verify/native-verify.js";
import { chooseVerifier, loadCheck, type VerifierChoice } from "../verify/verifier-choice.js";

interface Checks {
  isIdValid(ev: NostrEvent): boolean;
  isSigValid(ev: NostrEvent): boolean;
}

let installed: Promise<VerifierChoice> | undefined;

/** Installs the fast checks in this process (idempotent); resolves with the verifier they use. */
export function installFastEventChecks(): Promise<VerifierChoice> {
  installed ??= (async () => {
    const choice = chooseVerifier();
    const check = await loadCheck(choice.backend);
    const utils = EventUtils as unknown as Checks;
    if (typeof utils.isIdValid !== "function" || typeof utils.isSigValid !== "function") {
      throw new Error("@nostr-relay/common's EventUtils no longer has isIdValid/isSigValid: the embedded relay cannot use the fast verifier");
    }
    // The library asks for the id first; the signature check redoes the hash (a few µs) to stay
    // a whole verdict on its own.
    utils.isIdValid = (ev) => typeof ev.id === "string" && eventHash(ev) === ev.id;
    utils.isSigValid = (ev) => check(ev) === "ok";
    return choice;
  })();
  return installed;
}
