// The native verifier (bcrypto) and its fallback (nostr-wasm) agree on every event, valid and
// hostile, and both give the verdict a correct BIP-340 verifier must: 5,000 events here, every
// class of bench/verify-corpus.ts; 100,000 in the benchmark (`verify_differential_events`).
// Also through the worker pool, whose workers load the backend they are told to.

import { afterEach, describe, expect, it } from "vitest";
import { jsCheck } from "../../adapters/verify/js-verify.js";
import { loadNativeCheck } from "../../adapters/verify/native-verify.js";
import { VerifierPool } from "../../adapters/verify/verifier-pool.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { CORPUS_CLASSES, verifyCorpus } from "../../bench/verify-corpus.js";

let pool: VerifierPool | undefined;
afterEach(async () => pool?.close());

function nativeCheck() {
  const native = loadNativeCheck();
  // A missing native build is a failure here, not a skip: the fallback's own test is below.
  if (!("check" in native)) throw new Error(native.reason);
  return native.check;
}

describe("verifier differential", () => {
  it("bcrypto native and nostr-wasm give the expected verdict on 5,000 events of every class", async () => {
    const corpus = await verifyCorpus(5_000, 1_000);
    expect(new Set(corpus.map((c) => c.cls))).toEqual(new Set(CORPUS_CLASSES));
    const native = nativeCheck();
    const wrong: string[] = [];
    for (const c of corpus) {
      const n = native(c.ev), w = wasmCheck(c.ev);
      if (n !== c.expect || w !== c.expect) wrong.push(`${c.cls}: native ${n}, wasm ${w}, expected ${c.expect} (${c.ev.id})`);
    }
    expect(wrong).toEqual([]);
    // The pure-JS path (what nostr-wasm's heap cannot hold) on a sample of every class.
    const sample = corpus.filter((_, i) => i % 20 === 0);
    expect(sample.filter((c) => jsCheck(c.ev) !== c.expect).map((c) => c.cls)).toEqual([]);
  }, 60_000);

  it("the pool's workers verify with the backend they are given, with the same verdicts", async () => {
    const corpus = await verifyCorpus(2_000, 300);
    for (const backend of ["bcrypto-native", "nostr-wasm"] as const) {
      pool = new VerifierPool({ workers: 2, backend });
      const verdicts = await pool.checkBatch(corpus.map((c) => c.ev));
      expect(verdicts.filter((v, i) => v !== corpus[i]!.expect)).toEqual([]);
      await pool.close();
      pool = undefined;
    }
  }, 60_000);
});
