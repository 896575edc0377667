// Which verifier runs: bcrypto native when it loads natively and passes its self-test, else
// nostr-wasm with the reason; TENEXD_VERIFIER forces the fallback; anything else is refused.

import { describe, expect, it } from "vitest";
import { jsCheck } from "../../adapters/verify/js-verify.js";
import { eventHash, loadNativeCheck } from "../../adapters/verify/native-verify.js";
import { SELF_TEST, selfTest } from "../../adapters/verify/self-test.js";
import { chooseVerifier, VerifierChoiceError } from "../../adapters/verify/verifier-choice.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";

describe("chooseVerifier", () => {
  it("picks bcrypto's native verifier here (it is installed and built), with no fallback reason", () => {
    // Not skipped when bcrypto is missing: this project's install builds it, and a missing build is what this catches.
    expect("check" in loadNativeCheck()).toBe(true);
    expect(chooseVerifier({})).toEqual({ backend: "bcrypto-native" });
  });

  it("falls back to nostr-wasm when bcrypto did not build, saying why", () => {
    const c = chooseVerifier({}, () => ({ reason: "bcrypto loaded without its native backend (native=0)" }));
    expect(c).toEqual({ backend: "nostr-wasm", fallback: "bcrypto loaded without its native backend (native=0)" });
  });

  it("falls back when the native module answers wrongly: one that accepts everything fails its self-test", () => {
    const c = chooseVerifier({}, () => ({ check: () => "ok" }));
    expect(c.backend).toBe("nostr-wasm");
    expect(c.fallback).toMatch(/self-test "flipped signature bit": expected bad_signature, got ok/);
    const throws = chooseVerifier({}, () => ({ check: () => { throw new Error("segfault-ish"); } }));
    expect(throws.fallback).toMatch(/got a throw \(segfault-ish\)/);
  });

  it("TENEXD_VERIFIER=nostr-wasm forces the fallback; an unknown value is refused naming the fix", () => {
    expect(chooseVerifier({ TENEXD_VERIFIER: "nostr-wasm" })).toEqual({ backend: "nostr-wasm", fallback: "TENEXD_VERIFIER=nostr-wasm" });
    expect(chooseVerifier({ TENEXD_VERIFIER: "bcrypto-native" }).backend).toBe("bcrypto-native");
    expect(() => chooseVerifier({ TENEXD_VERIFIER: "noble" })).toThrow(VerifierChoiceError);
    expect(() => chooseVerifier({ TENEXD_VERIFIER: "noble" })).toThrow(/use bcrypto-native or nostr-wasm, or unset it/);
  });

  it("every verifier the daemon can run passes the self-test, and each case is one it can fail", () => {
    const native = loadNativeCheck();
    if (!("check" in native)) throw new Error(native.reason);
    for (const check of [native.check, wasmCheck, jsCheck]) expect(selfTest(check, eventHash)).toBeUndefined();
    // Every case but the valid one is caught by a verifier that says "ok" to it alone.
    for (const c of SELF_TEST.filter((x) => x.expect !== "ok")) {
      const lenient = (ev: typeof c.ev) => (ev.sig === c.ev.sig && ev.pubkey === c.ev.pubkey && ev.content === c.ev.content ? "ok" as const : native.check(ev));
      expect(selfTest(lenient, eventHash)).toContain(c.name);
    }
  });
});
