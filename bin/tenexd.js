#!/usr/bin/env node
// Launcher: the CLI is compiled TypeScript under dist/ (built by `npm run build`, which
// `npm ci` runs through the prepare script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";

const entry = new URL("../dist/daemon/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("tenexd is not built: run `npm run build`\n");
  process.exit(1);
}
// The daemon keeps V8's young generation at its initial size (two 1 MB semi-spaces) instead of
// letting the first burst of work (the back-fill after start) grow it to 2 × 16 MB, which stays
// resident from then on. Measured: −12 MB of RSS after the back-fill, −4 MB at ready, no loss
// of ingest rate (docs/architecture.md, "Memory"). Set here, before the heap has grown: V8
// reads this flag whenever it would grow the young generation (a node flag such as
// --max-semi-space-size would need a second process, as only the command line can set it).
const daemon = commandOf(process.argv.slice(2)) === "start";
if (daemon) setFlagsFromString("--semi-space-growth-factor=1");
const { runCli } = await import(entry.href);
// Not process.exit(await main(…)): runCli exits only once stdout and stderr are flushed (a pipe
// holds 64 KiB; exiting with more queued cut the output there).
await runCli(process.argv.slice(2), daemon);

/** The command's name: the first positional argument (only `--project DIR` takes a value before it). */
function commandOf(args) {
  try {
    return parseArgs({ args, options: { project: { type: "string" } }, strict: false, allowPositionals: true }).positionals[0];
  } catch {
    return undefined;
  }
}
