// Signature checks switched off in this process, for the bench only (unverified-daemon.ts): issue
// 18 asks that the live and relay paths keep ≥ 75% of the rate they reach without verification,
// and the daemon itself has no switch for that (a daemon that can be told not to verify is a
// hole, so none ships). Every check of the daemon's verifier is answered "ok" unseen; the edge
// checks, the id dedup, the queues, the log and the index stay the daemon's own.

import { OnDemandVerifier } from "../adapters/verify/on-demand-verifier.js";
import type { Verdict } from "../adapters/verify/verify-protocol.js";

const ok: Promise<Verdict> = Promise.resolve("ok");

// The route's two ways to a verdict (daemon/engine/ingest/checks.ts and route-slice.ts): `check`
// for one event (`verify` calls it), `checkMany` for a relay's slice. A switch that covered only
// the first left the live and back-fill paths verified in the "unverified" runs from the day the
// slice route came (session 23) until session 30: test/integration/unverified-checks.test.ts
// now drives both routes and fails should either reach a verdict another way.
const SWITCHED = {
  check: () => ok,
  checkMany: (evs: readonly unknown[]) => Promise.resolve(evs.map((): Verdict => "ok")),
} as const;

/** From now on every OnDemandVerifier in this process answers "ok" without looking. Returns the undo. */
export function switchVerificationOff(): () => void {
  const proto = OnDemandVerifier.prototype;
  const saved = Object.keys(SWITCHED).map((name) => [name, Object.getOwnPropertyDescriptor(proto, name)!] as const);
  for (const [name, descriptor] of saved) {
    Object.defineProperty(proto, name, { ...descriptor, value: SWITCHED[name as keyof typeof SWITCHED] });
  }
  return () => {
    for (const [name, descriptor] of saved) Object.defineProperty(proto, name, descriptor);
  };
}
