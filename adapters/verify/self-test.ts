// The check a verifier must pass before the daemon trusts it with every inbound event: a known
// signed event and its hostile variants (a flipped signature bit, a wrong id, s ≥ n, r ≥ p, a
// pubkey off the curve), each with the verdict every correct BIP-340 verifier gives. A native
// module that loads but answers wrongly (a bad build, a wrong library version) is refused here.

import type { NostrEvent } from "../../src/types.js";
import type { Verdict } from "./verify-protocol.js";

const GOOD: NostrEvent = {
  kind: 1111, created_at: 1764000000,
  tags: [["E", "a".repeat(64)], ["p", "b".repeat(64)]],
  content: "self-test: ünïcødé ✓ \"quoted\" \\ line\nbreak",
  pubkey: "c6939b65a25cb51d47ae3af2ff6390bb1217af0456589cf372f36128bfa25570",
  id: "2f697d93427c2621aaf4060c6d5dbd6250a01ffe2100333df49dfee5f9750811",
  sig: "df0f569c6f1278cafad0f4d250846dd8c302067cb8c7206438d3ebac75d3f8c80d44133545cb282b096c81c8cbbbe4fb7d597a0a6d7c834944044fbaee00d6b4",
};
// The curve's order n and field size p.
const N = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
const P = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f";
const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);

export const SELF_TEST: readonly { name: string; ev: NostrEvent; expect: Verdict }[] = [
  { name: "valid", ev: GOOD, expect: "ok" },
  { name: "flipped signature bit", ev: { ...GOOD, sig: flip(GOOD.sig, 100) }, expect: "bad_signature" },
  { name: "content changed", ev: { ...GOOD, content: `${GOOD.content}.` }, expect: "bad_id" },
  { name: "s = n", ev: { ...GOOD, sig: GOOD.sig.slice(0, 64) + N }, expect: "bad_signature" },
  { name: "r = p", ev: { ...GOOD, sig: P + GOOD.sig.slice(64) }, expect: "bad_signature" },
  // x = 5 has no point on secp256k1 (5³ + 7 = 132 is not a square mod p): the id is recomputed
  // by the test itself, so only the key is wrong.
  { name: "pubkey off the curve", ev: { ...GOOD, pubkey: `${"0".repeat(63)}5`, id: "" }, expect: "bad_signature" },
];

/** Undefined when `check` gives every expected verdict, else which case it got wrong. */
export function selfTest(check: (ev: NostrEvent) => Verdict, hash: (ev: NostrEvent) => string): string | undefined {
  for (const c of SELF_TEST) {
    const ev = c.ev.id === "" ? { ...c.ev, id: hash(c.ev) } : c.ev;
    let got: Verdict | string;
    try {
      got = check(ev);
    } catch (err) {
      got = `a throw (${err instanceof Error ? err.message : String(err)})`;
    }
    if (got !== c.expect) return `self-test "${c.name}": expected ${c.expect}, got ${got}`;
  }
  return undefined;
}
