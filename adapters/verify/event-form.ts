// The verdict on an event's hex fields' form alone, before any check of what they say. Its own
// module so that a thread running the native check (verify-worker.ts) loads neither nostr-tools'
// pure-JS curve code nor nostr-wasm: its start took 20 ms of CPU instead of 40 and was ready 51 ms
// after the pool asked instead of 67 (medians of 10, docs/performance.md, session 30).

import { isLowerHex } from "../../src/hex.js";
import { isHex64, type NostrEvent } from "../../src/types.js";
import type { Verdict } from "./verify-protocol.js";

/**
 * The verdict on the hex fields' form alone, undefined when they are well-formed. Only the exact
 * form (lowercase, full length) may reach a check: nostr-wasm parses hex leniently.
 */
export function formVerdict(ev: NostrEvent): Verdict | undefined {
  if (!isHex64(ev.id)) return "bad_id";
  if (!isHex64(ev.pubkey) || !isLowerHex(ev.sig, 128)) {
    return "bad_signature";
  }
  return undefined;
}
