// The bench's verification switch (bench/unverified-checks.ts) behind the figures that price
// verification by difference (ingest_*_verify_ratio): with it on, the daemon's route takes in an
// event whose signature does not verify; with it undone, the route refuses the same kind of
// event again. Should the route ever reach a verdict another way, the unverified runs would be
// verified after all and their ratio would lie: this fails first.

import { afterEach, describe, expect, it } from "vitest";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import { switchVerificationOff } from "../../bench/unverified-checks.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";
import { inSlices, openRoute } from "../helpers/route-fixture.js";
import { tempDir } from "../helpers/temp-dir.js";

const forge = (ev: NostrEvent): NostrEvent => ({ ...ev, sig: (ev.sig[0] === "a" ? "b" : "a") + ev.sig.slice(1) });

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

describe("the bench's verification switch", () => {
  // The route one event at a time (route.ingest: the daemon's own events, the API's) and a
  // relay's slice (fromRelayMany: the live subscription and the back-fill, what the bench's
  // unverified runs measure), each reaching its verdict its own way.
  const routes = {
    "one event at a time": (d: Awaited<ReturnType<typeof openRoute>>) => d.route,
    "a relay's slice": (d: Awaited<ReturnType<typeof openRoute>>) => inSlices(d.route),
  };
  for (const [name, via] of Object.entries(routes)) {
    it(`lets the daemon's own verifier pass a forged signature, and only while it is on: ${name}`, async () => {
      const p = testProject();
      const verifier = new OnDemandVerifier();
      const d = await openRoute(tempDir("tenexd-unverified-"), p.info, { verifier });
      const route = via(d);
      try {
        const roots = [1, 2, 3].map((i) => forge(p.root(p.owner, `forged ${i}`, [p.agents.planner!.pubkey])));
        expect(await route.ingest(roots[0])).toMatchObject({ status: "rejected", reason: "bad_signature" });
        undo = switchVerificationOff();
        expect(await route.ingest(roots[1])).toMatchObject({ status: "accepted" });
        expect(await verifier.verify(roots[1]!)).toBe(true);
        undo();
        undo = undefined;
        expect(await route.ingest(roots[2])).toMatchObject({ status: "rejected", reason: "bad_signature" });
      } finally {
        await d.close();
        await verifier.close();
      }
    });
  }
});
