// The on-demand verifier: inline checks for a trickle, the worker pool for a burst, the pool
// stopped when idle; the verdicts are the same either way.

import { afterEach, describe, expect, it } from "vitest";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
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
