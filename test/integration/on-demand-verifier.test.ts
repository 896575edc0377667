// The on-demand verifier: inline checks for a trickle, the worker pool for a burst, the pool
// stopped when idle; the verdicts are the same either way.

import { afterEach, describe, expect, it } from "vitest";
import { jsCheck } from "../../adapters/verify/js-verify.js";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { newKey, sign } from "../helpers/events.js";

const key = newKey();
const good = (i: number) => sign(key, 1111, `message ${i}`);
const badSig = (i: number) => {
  const ev = good(i);
  return { ...ev, sig: (ev.sig[0] === "0" ? "1" : "0") + ev.sig.slice(1) };
};
const badId = (i: number) => ({ ...good(i), id: "0".repeat(64) });

let verifier: OnDemandVerifier | undefined;
afterEach(async () => verifier?.close());

describe("OnDemandVerifier", () => {
  it("checks a trickle inline, without starting the pool, with exact verdicts", async () => {
    verifier = new OnDemandVerifier({ burstPerSecond: 100 });
    expect(await verifier.check(good(1))).toBe("ok");
    expect(await verifier.check(badSig(2))).toBe("bad_signature");
    expect(await verifier.check(badId(3))).toBe("bad_id");
    expect(verifier.poolRunning).toBe(false);
    expect(verifier.stats.inline).toBe(3);
  });

  it("with bcrypto native chosen, checks inline from the start with it (no module to load late)", async () => {
    verifier = new OnDemandVerifier({ burstPerSecond: 100, choice: { backend: "bcrypto-native" } });
    expect(verifier.inlineLoaded).toBe(true);
    expect(await Promise.all([verifier.check(good(1)), verifier.check(badSig(2)), verifier.check(badId(3))])).toEqual(["ok", "bad_signature", "bad_id"]);
  });

  it("with nostr-wasm chosen, loads it at the first inline check; checks made meanwhile wait for it and are answered in arrival order", async () => {
    verifier = new OnDemandVerifier({ burstPerSecond: 100, choice: { backend: "nostr-wasm", fallback: "test" } });
    expect(verifier.inlineLoaded).toBe(false);
    const answered: number[] = [];
    const whileLoading = await Promise.all([good(1), badSig(2), badId(3)].map((ev, i) =>
      verifier!.check(ev).then((v) => {
        answered.push(i);
        // Answered by nostr-wasm, not by the slow pure-JS path on the main thread.
        expect(verifier!.inlineLoaded).toBe(true);
        return v;
      })));
    expect(whileLoading).toEqual(["ok", "bad_signature", "bad_id"]);
    expect(answered).toEqual([0, 1, 2]);
    const loaded = await Promise.all([verifier.check(good(4)), verifier.check(badSig(5)), verifier.check(badId(6))]);
    expect(loaded).toEqual(["ok", "bad_signature", "bad_id"]);
    expect(verifier.poolRunning).toBe(false);
  });

  it("the pure-JS path gives nostr-wasm's verdicts", () => {
    const upper = good(7);
    const cases = [good(7), badSig(8), badId(9), { ...upper, id: upper.id.toUpperCase() }, { ...upper, pubkey: upper.pubkey.toUpperCase() }, { ...upper, sig: "00" }];
    expect(cases.map(jsCheck)).toEqual(cases.map(wasmCheck));
    expect(cases.map(jsCheck)).toEqual(["ok", "bad_signature", "bad_id", "bad_id", "bad_signature", "bad_signature"]);
  });

  it("starts the pool for a burst and gives every event its own verdict, in order", async () => {
    verifier = new OnDemandVerifier({ burstPerSecond: 10 });
    const events = Array.from({ length: 60 }, (_, i) => (i % 10 === 3 ? badSig(i) : good(i)));
    const verdicts = await Promise.all(events.map((ev) => verifier!.check(ev)));
    expect(verifier.poolRunning).toBe(true);
    expect(verifier.stats.pooled).toBeGreaterThan(0);
    expect(verdicts.map((v, i) => (i % 10 === 3 ? v === "bad_signature" : v === "ok")).every(Boolean)).toBe(true);
  });

  it("stops the idle pool and starts it again for the next burst", async () => {
    verifier = new OnDemandVerifier({ burstPerSecond: 5, idleMs: 200 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => verifier!.check(good(i))));
    expect(verifier.poolRunning).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(verifier.poolRunning).toBe(false);
    // A new second's window: a trickle again is inline.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await verifier.check(good(99))).toBe("ok");
    expect(verifier.poolRunning).toBe(false);
    await Promise.all(Array.from({ length: 20 }, (_, i) => verifier!.check(good(100 + i))));
    expect(verifier.stats.poolStarts).toBe(2);
  });
});
