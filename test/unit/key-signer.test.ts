// The daemon's signatures (adapters/nostr/key-signer.ts), checked by an implementation it does
// not use: nostr-tools' pure-JS verifier and id. Signed natively (bcrypto) on this machine; a
// build without it would sign with nostr-tools, and this test says which ran.

import { getEventHash, verifyEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { describe, expect, it } from "vitest";
import { KeySigner } from "../../adapters/nostr/key-signer.js";

const CONTENTS = ["", "hello", "naïve café ☕ 𝄞 \u0000 \"quoted\" \\ back\nslash", "x".repeat(10_000)];
const TAGS: string[][][] = [[], [["p", "a".repeat(64)], ["e", "b".repeat(64), "", "root"]], [["t", "ünïcode"], ["title", "a\"b"]]];

describe("KeySigner", () => {
  it("signs natively here, and every event it signs has the id and the signature an independent verifier expects", async () => {
    expect(KeySigner.backend).toBe("bcrypto-native");
    const sk = generateSecretKey();
    const signer = new KeySigner(sk);
    expect(signer.pubkey).toBe(getPublicKey(sk));
    const sigs = new Set<string>();
    for (const content of CONTENTS) {
      for (const tags of TAGS) {
        for (const kind of [1, 11, 1111, 513, 24133]) {
          const ev = await signer.sign({ kind, created_at: 1_700_000_000 + kind, tags, content });
          expect(ev.pubkey).toBe(signer.pubkey);
          expect(ev.id).toBe(getEventHash(ev));
          expect(verifyEvent({ ...ev })).toBe(true);
          sigs.add(ev.sig);
        }
      }
    }
    // Fresh auxiliary randomness: no two signatures alike.
    expect(sigs.size).toBe(CONTENTS.length * TAGS.length * 5);
  });

  it("a signature is bound to its event: another content or another key fails the independent check", async () => {
    const signer = new KeySigner(generateSecretKey());
    const ev = await signer.sign({ kind: 1, created_at: 1_700_000_000, tags: [], content: "pay 1" });
    expect(verifyEvent({ ...ev, content: "pay 9" })).toBe(false);
    const other = new KeySigner(generateSecretKey());
    expect(verifyEvent({ ...ev, pubkey: other.pubkey })).toBe(false);
  });
});
