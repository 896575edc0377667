// Id and signature check of one event with bcrypto's native BIP-340 (libsecp256k1 compiled at
// install), ~4.7× nostr-wasm per core (docs/architecture.md, "The verifier"). bcrypto is an
// optional dependency: when it did not build, or loaded only its pure-JS backend (slower than
// nostr-wasm), `loadNativeCheck` says why and the daemon falls back to nostr-wasm
// (verifier-choice.ts). The id is hashed with node:crypto, the serialization nostr-wasm hashes.

import { createHash } from "node:crypto";
import type { NostrEvent } from "../../src/types.js";
import { formVerdict } from "./event-form.js";
import { loadNativeSchnorr, type NativeSchnorr } from "./native-schnorr.js";
import type { Verdict } from "./verify-protocol.js";

export type Check = (ev: NostrEvent) => Verdict;
/** A check that also gives the event's JSON (`JSON.stringify(ev)`'s text) when it passes. */
export type JsonCheck = (ev: NostrEvent) => { verdict: Verdict; json?: string };

/** The checks, or why bcrypto's native backend cannot give them here. */
export function loadNativeCheck(): { check: Check; jsonCheck: JsonCheck } | { reason: string } {
  const loaded = loadNativeSchnorr();
  if ("reason" in loaded) return loaded;
  return {
    check: (ev) => nativeCheck(loaded.schnorr, ev, serializedTexts(ev)),
    jsonCheck: (ev) => {
      const texts = serializedTexts(ev);
      const verdict = nativeCheck(loaded.schnorr, ev, texts);
      const json = verdict === "ok" ? eventJson(ev, texts) : undefined;
      return json === undefined ? { verdict } : { verdict, json };
    },
  };
}

// `texts`: undefined when the tags or content cannot be serialized (a cycle, a BigInt): refused
// as a throw inside the check is.
function nativeCheck(schnorr: NativeSchnorr, ev: NostrEvent, texts: Texts | undefined): Verdict {
  const form = formVerdict(ev);
  if (form) return form;
  if (!texts) return "bad_signature";
  try {
    if (hashOf(ev, texts) !== ev.id) return "bad_id";
    return schnorr.verify(Buffer.from(ev.id, "hex"), Buffer.from(ev.sig, "hex"), Buffer.from(ev.pubkey, "hex")) ? "ok" : "bad_signature";
  } catch {
    // Fields of the wrong type (the edge checks refuse them first): no verdict can vouch for it.
    return "bad_signature";
  }
}

/** The tags' and the content's JSON: in the id's serialization, and in the event's JSON. */
interface Texts {
  tags: string;
  content: string;
}

function serializedTexts(ev: NostrEvent): Texts | undefined {
  try {
    return { tags: JSON.stringify(ev.tags), content: JSON.stringify(ev.content) };
  } catch {
    return undefined;
  }
}

/** sha256 of the NIP-01 serialization, as nostr-wasm writes it (pubkey and numbers unquoted by JSON). */
export function eventHash(ev: Omit<NostrEvent, "id" | "sig">): string {
  return hashOf(ev, { tags: JSON.stringify(ev.tags), content: JSON.stringify(ev.content) });
}

function hashOf(ev: Omit<NostrEvent, "id" | "sig">, texts: Texts): string {
  return createHash("sha256").update(`[0,"${ev.pubkey}",${ev.created_at},${ev.kind},${texts.tags},${texts.content}]`).digest("hex");
}

const EVENT_KEYS = ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"];

/**
 * `JSON.stringify(ev)` of an event that passed its check, from the texts its id hash used: when
 * its keys are the seven in the order the edge writes them (src/edge/envelope.ts) and its numbers
 * finite, the hex fields (checked) need no escaping and a number's JSON is its template text, so
 * the text is the same; else `JSON.stringify` itself, or none if that throws.
 */
function eventJson(ev: NostrEvent, texts: Texts | undefined): string | undefined {
  const keys = Object.keys(ev);
  const canonical = texts !== undefined && Number.isFinite(ev.created_at) && Number.isFinite(ev.kind)
    && keys.length === EVENT_KEYS.length && keys.every((k, i) => k === EVENT_KEYS[i]);
  if (canonical) {
    return `{"id":"${ev.id}","pubkey":"${ev.pubkey}","created_at":${ev.created_at},"kind":${ev.kind},"tags":${texts.tags},"content":${texts.content},"sig":"${ev.sig}"}`;
  }
  try {
    return JSON.stringify(ev);
  } catch {
    return undefined;
  }
}
