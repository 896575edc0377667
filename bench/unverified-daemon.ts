// The daemon with signature checks switched off, for the bench only: issue 18 asks that the live
// and relay paths keep ≥ 75% of the rate they reach without verification, and the daemon
// itself has no switch for that (a daemon that can be told not to verify is a hole, so none
// ships). This launcher answers every check "ok" unseen, in the main thread, before the
// daemon's code runs, then starts it exactly as bin/tenexd.js does (same flags, same CLI):
// `node dist/bench/unverified-daemon.js start --project DIR --json`. Everything else, the
// edge checks, the id dedup, the queues, the log and the index, is the daemon's own.

import { OnDemandVerifier } from "../adapters/verify/on-demand-verifier.js";
import type { Verdict } from "../adapters/verify/verify-protocol.js";

const ok: Promise<Verdict> = Promise.resolve("ok");
// check() is the route's only way to a verdict (daemon/engine/ingest/checks.ts); verify() calls it.
OnDemandVerifier.prototype.check = () => ok;

// bin/tenexd.js reads the command from process.argv, which is this launcher's own (a URL from
// dist/bench/, where this file runs: the launcher is not compiled).
await import(new URL("../../bin/tenexd.js", import.meta.url).href);
