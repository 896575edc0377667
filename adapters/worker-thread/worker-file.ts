// Where a worker thread's script is. A worker needs JavaScript, and Node 20 cannot run
// TypeScript, so a worker is always a compiled file:
//  - running compiled (dist/, the daemon and the benchmarks), it is the file next to the module
//    asking for it;
//  - running from the .ts sources (vitest), it is the one in dist/, which `npm test` builds
//    first. A missing or stale build is refused with a clear error rather than silently
//    testing old code.

import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const REPO = new URL("../../", import.meta.url);

export class WorkerScriptError extends Error {
  override name = "WorkerScriptError";
  constructor(detail: string) {
    super(`worker script: ${detail}; run \`npm run build\``);
  }
}

type Fail = (detail: string) => Error;

/**
 * `entry`: the worker's module from the repository's root, without extension
 * ("adapters/verify/verify-worker"); `sources`: the modules it loads (transitively), each a file
 * or a directory, all of it, searched for sources newer than their compiled form. `fail` makes
 * the error thrown when the compiled script is missing or stale.
 */
export function workerFile(entry: string, sources: readonly string[], fail: Fail = (d) => new WorkerScriptError(d)): URL {
  const sibling = new URL(`${entry}.js`, REPO);
  if (existsSync(sibling)) return sibling;
  for (const module of [entry, ...sources]) {
    const dir = new URL(`${module}/`, REPO);
    if (existsSync(dir) && statSync(dir).isDirectory()) checkDir(dir, `${module}/`, fail);
    else checkModule(module, fail);
  }
  return new URL(`dist/${entry}.js`, REPO);
}

function checkDir(dir: URL, prefix: string, fail: Fail): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) checkDir(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`, fail);
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) checkModule(`${prefix}${e.name.slice(0, -3)}`, fail);
  }
}

function checkModule(module: string, fail: Fail): void {
  const compiled = new URL(`dist/${module}.js`, REPO);
  if (!existsSync(compiled)) throw fail(`${fileURLToPath(compiled)} not found`);
  const source = new URL(`${module}.ts`, REPO);
  if (existsSync(source) && statSync(source).mtimeMs > statSync(compiled).mtimeMs) {
    throw fail(`dist/${module}.js is older than ${module}.ts`);
  }
}
