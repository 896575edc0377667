#!/usr/bin/env node
// Launcher: the CLI is compiled TypeScript under dist/ (built by `npm run build`, which
// `npm ci` runs through the prepare script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/daemon/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("tenexd is not built: run `npm run build`\n");
  process.exit(1);
}
const { main } = await import(entry.href);
process.exit(await main(process.argv.slice(2)));
