// Events for the differential test of the verifiers (adapters/verify/): valid ones, and every
// hostile class an attacker can send (bad signatures, bad ids, s ≥ n, r ≥ p, keys off the curve
// or another's, wrong lengths, non-hex), each with the verdict every correct BIP-340 verifier
// must give. The suite checks 5,000 (test/integration/verifier-differential.test.ts); the
// benchmark's `verify_differential_*` 100,000.

import { randomBytes } from "node:crypto";
import { initNostrWasm } from "nostr-wasm";
import { eventHash } from "../adapters/verify/native-verify.js";
import type { Verdict } from "../adapters/verify/verify-protocol.js";
import type { NostrEvent } from "../src/types.js";

export interface CorpusEvent {
  cls: string;
  ev: NostrEvent;
  expect: Verdict;
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const hex64 = (v: bigint) => v.toString(16).padStart(64, "0");
const rand256 = () => BigInt(`0x${randomBytes(32).toString("hex")}`);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}

/** An x with no point on secp256k1 (x³ + 7 is not a square mod p), or one ≥ p. */
function offCurveKey(): string {
  if (Math.random() < 0.1) return hex64(P + (rand256() % (2n ** 256n - P)));
  for (;;) {
    const x = rand256() % P;
    if (powMod((x * x * x + 7n) % P, (P - 1n) / 2n, P) === P - 1n) return hex64(x);
  }
}

const flipDigit = (hex: string, at = Math.floor(Math.random() * hex.length)) =>
  hex.slice(0, at) + ((parseInt(hex[at]!, 16) + 1 + Math.floor(Math.random() * 15)) % 16).toString(16) + hex.slice(at + 1);
const rehash = (ev: NostrEvent): NostrEvent => ({ ...ev, id: eventHash(ev) });
const CONTENTS = ["", "plain", "ünïcødé ✓ 🎉", "quote \" backslash \\ newline \n tab \t", "lone \ud800 surrogate", "\u0000\u001f control", "x".repeat(3000)];

/** Each hostile class: how it is made from a valid event (and another one), and its verdict. */
const CLASSES: readonly { cls: string; expect: Verdict; make(ev: NostrEvent, other: NostrEvent): NostrEvent }[] = [
  { cls: "sig_digit", expect: "bad_signature", make: (ev) => ({ ...ev, sig: flipDigit(ev.sig) }) },
  { cls: "sig_of_other_event", expect: "bad_signature", make: (ev, o) => ({ ...ev, sig: o.sig }) },
  { cls: "other_key", expect: "bad_signature", make: (ev, o) => rehash({ ...ev, pubkey: o.pubkey === ev.pubkey ? offCurveKey() : o.pubkey }) },
  { cls: "content_changed", expect: "bad_id", make: (ev) => ({ ...ev, content: `${ev.content}!` }) },
  { cls: "tags_changed", expect: "bad_id", make: (ev) => ({ ...ev, tags: [...ev.tags, ["t", "x"]] }) },
  { cls: "created_at_changed", expect: "bad_id", make: (ev) => ({ ...ev, created_at: ev.created_at + 1 }) },
  { cls: "id_digit", expect: "bad_id", make: (ev) => ({ ...ev, id: flipDigit(ev.id) }) },
  { cls: "high_s", expect: "bad_signature", make: (ev) => ({ ...ev, sig: ev.sig.slice(0, 64) + hex64(N + (rand256() % (2n ** 256n - N))) }) },
  { cls: "s_plus_n", expect: "bad_signature", make: (ev) => {
    const s = BigInt(`0x${ev.sig.slice(64)}`) + N;
    return { ...ev, sig: ev.sig.slice(0, 64) + (s < 2n ** 256n ? hex64(s) : hex64(N)) };
  } },
  { cls: "r_ge_p", expect: "bad_signature", make: (ev) => ({ ...ev, sig: hex64(P + (rand256() % (2n ** 256n - P))) + ev.sig.slice(64) }) },
  { cls: "zero_sig", expect: "bad_signature", make: (ev) => ({ ...ev, sig: "0".repeat(128) }) },
  { cls: "off_curve_key", expect: "bad_signature", make: (ev) => rehash({ ...ev, pubkey: offCurveKey() }) },
  { cls: "zero_key", expect: "bad_signature", make: (ev) => rehash({ ...ev, pubkey: "0".repeat(64) }) },
  { cls: "id_short", expect: "bad_id", make: (ev) => ({ ...ev, id: ev.id.slice(0, 63) }) },
  { cls: "id_long", expect: "bad_id", make: (ev) => ({ ...ev, id: `${ev.id}0` }) },
  { cls: "sig_short", expect: "bad_signature", make: (ev) => ({ ...ev, sig: ev.sig.slice(0, pick([126, 127])) }) },
  { cls: "sig_long", expect: "bad_signature", make: (ev) => ({ ...ev, sig: `${ev.sig}${pick(["0", "00"])}` }) },
  { cls: "key_short", expect: "bad_signature", make: (ev) => ({ ...ev, pubkey: ev.pubkey.slice(0, 62) }) },
  { cls: "key_long", expect: "bad_signature", make: (ev) => ({ ...ev, pubkey: `${ev.pubkey}00` }) },
  { cls: "id_uppercase", expect: "bad_id", make: (ev) => ({ ...ev, id: ev.id.toUpperCase() === ev.id ? `G${ev.id.slice(1)}` : ev.id.toUpperCase() }) },
  { cls: "sig_non_hex", expect: "bad_signature", make: (ev) => ({ ...ev, sig: `${ev.sig.slice(0, 127)}${pick(["g", "G", " ", "-", "é"])}` }) },
  { cls: "key_uppercase", expect: "bad_signature", make: (ev) => ({ ...ev, pubkey: /[a-f]/.test(ev.pubkey) ? ev.pubkey.toUpperCase() : `${ev.pubkey.slice(0, 63)}x` }) },
];

export const CORPUS_CLASSES = ["valid", ...CLASSES.map((c) => c.cls)];

/**
 * `total` events: `valid` signed with `keys` keys (nostr-wasm, ~2,000/s a core), the rest hostile,
 * the classes in turn, each made from a random valid event.
 */
export async function verifyCorpus(total: number, valid: number, keys = 16): Promise<CorpusEvent[]> {
  const nw = await initNostrWasm();
  const sks = Array.from({ length: keys }, () => nw.generateSecretKey());
  const good: NostrEvent[] = [];
  for (let i = 0; i < valid; i++) {
    const ev = { kind: pick([1, 11, 1111, 1934, 513]), created_at: 1_700_000_000 + i, content: `${pick(CONTENTS)} ${i}`, tags: [["a", `31933:${"f".repeat(64)}:p`], ["p", hex64(rand256())]] } as NostrEvent;
    nw.finalizeEvent(ev, sks[i % keys]!);
    good.push(ev);
  }
  const out: CorpusEvent[] = good.map((ev) => ({ cls: "valid", ev, expect: "ok" as const }));
  for (let i = 0; out.length < total; i++) {
    const c = CLASSES[i % CLASSES.length]!;
    // Another event: one's own signature or key is no hostile variant.
    const a = Math.floor(Math.random() * good.length);
    const b = (a + 1 + Math.floor(Math.random() * (good.length - 1))) % good.length;
    out.push({ cls: c.cls, ev: c.make(good[a]!, good[b]!), expect: c.expect });
  }
  return out;
}
