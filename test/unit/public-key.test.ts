// The public key the daemon derives from each secret key it reads (adapters/nostr/public-key.ts):
// bcrypto's native secp256k1 here, held to nostr-tools' pure-JS derivation, which it replaced at
// start (noble's first derivation builds its tables: ~60 ms and ~6 MB at every start).

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { describe, expect, it } from "vitest";
import { publicKeyOf } from "../../adapters/nostr/public-key.js";

const N = BigInt("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
const scalar = (k: bigint) => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, "0"), "hex"));

describe("publicKeyOf", () => {
  it("gives nostr-tools' public key for 1,000 random keys and the edges of the range", () => {
    const keys = [...Array.from({ length: 1000 }, () => generateSecretKey()), scalar(1n), scalar(2n), scalar(N - 1n)];
    for (const sk of keys) expect(publicKeyOf(sk)).toBe(getPublicKey(sk));
  });

  it("refuses what is not a secret key, as nostr-tools does, and leaves the caller's bytes alone", () => {
    for (const bad of [scalar(0n), scalar(N), scalar(N + 1n), new Uint8Array(31), new Uint8Array(33).fill(1)]) {
      expect(() => getPublicKey(bad)).toThrow();
      expect(() => publicKeyOf(bad)).toThrow();
    }
    const sk = generateSecretKey();
    const copy = Uint8Array.from(sk);
    publicKeyOf(sk);
    expect(sk).toEqual(copy);
  });
});
