// Loads one of tenexd's own native modules (native/<name>, compiled at install by
// scripts/build-native.mjs). Every one is optional: a module that did not build or does not
// load comes back as the reason, for the caller to fall back and say so.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** `native/<name>/build/Release/<name>.node`, as the addon's exports, or why not. */
export function loadAddon<T>(name: "spawn" | "malloc"): T | { reason: string } {
  // From the sources (adapters/native) and from the build (dist/adapters/native).
  const file = [`../../native/${name}/build/Release/${name}.node`, `../../../native/${name}/build/Release/${name}.node`]
    .map((c) => fileURLToPath(new URL(c, import.meta.url)))
    .find((f) => existsSync(f));
  if (file === undefined) return { reason: `native/${name} was not built at install (see npm ci's output; \`npm run build:native\` tries again)` };
  try {
    return createRequire(import.meta.url)(file) as T;
  } catch (err) {
    return { reason: `native/${name} did not load: ${(err as Error).message}` };
  }
}
