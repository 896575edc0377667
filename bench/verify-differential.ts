// The verifiers held to the same verdicts on 100,000 events (bench/verify-corpus.ts: 10,000
// valid, the rest every hostile class in turn): bcrypto native and nostr-wasm each against the
// verdict a correct BIP-340 verifier must give. The suite checks 5,000 of them.
//   verify_differential_events      events checked by both
//   verify_differential_mismatches  events where either gave another verdict (goal 0)

import { loadNativeCheck } from "../adapters/verify/native-verify.js";
import { wasmCheck } from "../adapters/verify/wasm-verify.js";
import type { Figure } from "./figure.js";
import { verifyCorpus } from "./verify-corpus.js";

const TOTAL = 100_000;
const VALID = 10_000;

export async function benchVerifyDifferential(): Promise<Figure[]> {
  const native = loadNativeCheck();
  if (!("check" in native)) throw new Error(`no native verifier to compare: ${native.reason}`);
  const corpus = await verifyCorpus(TOTAL, VALID);
  const byClass = new Map<string, number>();
  const mismatches: string[] = [];
  for (const c of corpus) {
    byClass.set(c.cls, (byClass.get(c.cls) ?? 0) + 1);
    const n = native.check(c.ev), w = wasmCheck(c.ev);
    if (n !== c.expect || w !== c.expect) mismatches.push(`${c.cls}: native ${n}, wasm ${w}, expected ${c.expect}`);
  }
  const classes = [...byClass].map(([k, v]) => `${k} ${v}`).join(", ");
  return [
    { name: "verify_differential_events", value: corpus.length, unit: "events", note: `bcrypto native and nostr-wasm, each against the expected verdict; ${classes}` },
    {
      name: "verify_differential_mismatches", value: mismatches.length, unit: "events",
      note: mismatches.length === 0 ? "every verdict as expected from both" : `first: ${mismatches.slice(0, 3).join("; ")}`,
    },
  ];
}
