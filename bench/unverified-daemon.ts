// The daemon with its signature checks switched off (unverified-checks.ts), started exactly as
// bin/tenexd.js starts it (same flags, same CLI), for the bench's "without verification" runs:
// `node dist/bench/unverified-daemon.js start --project DIR --json`.

import { switchVerificationOff } from "./unverified-checks.js";

switchVerificationOff();
// bin/tenexd.js reads the command from process.argv, which is this launcher's own (a URL from
// dist/bench/, where this file runs: the launcher is not compiled).
await import(new URL("../../bin/tenexd.js", import.meta.url).href);
