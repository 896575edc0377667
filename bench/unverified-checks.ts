// Signature checks switched off in this process, for the bench only (unverified-daemon.ts): issue
// 18 asks that the live and relay paths keep ≥ 75% of the rate they reach without verification,
// and the daemon itself has no switch for that (a daemon that can be told not to verify is a
// hole, so none ships). Every check of the daemon's verifier is answered "ok" unseen; the edge
// checks, the id dedup, the queues, the log and the index stay the daemon's own.

import { OnDemandVerifier } from "../adapters/verify/on-demand-verifier.js";
import type { Verdict } from "../adapters/verify/verify-protocol.js";

const ok: Promise<Verdict> = Promise.resolve("ok");

/**
 * From now on every OnDemandVerifier in this process answers "ok" without looking. `check` is
 * the route's only way to a verdict (daemon/engine/ingest/checks.ts; `verify` calls it):
 * test/integration/unverified-checks.test.ts fails should that change. Returns the undo.
 */
export function switchVerificationOff(): () => void {
  const check = Object.getOwnPropertyDescriptor(OnDemandVerifier.prototype, "check")!;
  Object.defineProperty(OnDemandVerifier.prototype, "check", { ...check, value: () => ok });
  return () => Object.defineProperty(OnDemandVerifier.prototype, "check", check);
}
