// The tenexd package's own directory, found from this file whether it runs from source
// (daemon/cli/) or compiled (dist/daemon/cli/): used for --version and `init --example`.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!isTenexdPackage(dir)) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the tenexd package directory (package.json named \"tenexd\")");
    dir = up;
  }
  cached = dir;
  return dir;
}

function isTenexdPackage(dir: string): boolean {
  const file = join(dir, "package.json");
  return existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === "tenexd";
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}
