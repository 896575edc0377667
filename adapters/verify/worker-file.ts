// Where the pool finds its worker script. A worker thread needs JavaScript, and Node 20 cannot
// run TypeScript, so the worker is always the compiled verify-worker.js:
//  - running compiled (dist/, the daemon and the benchmarks), it is the file next to this one;
//  - running from the .ts sources (vitest), it is the one in dist/, which `npm test` builds
//    first. A missing or stale build is refused with a clear error rather than silently
//    testing old code.

import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WorkerFileError } from "./errors.js";

const SIBLING = new URL("./verify-worker.js", import.meta.url);
const REPO = new URL("../../", import.meta.url);
// The modules of this repository the worker loads (its imports, transitively).
const WORKER_SOURCES = [
  "adapters/verify/verify-worker", "adapters/verify/verifier-choice", "adapters/verify/native-verify", "adapters/verify/self-test",
  "adapters/verify/wasm-verify", "adapters/verify/js-verify", "adapters/verify/verify-protocol", "src/types",
];

export function workerFile(): URL {
  if (existsSync(SIBLING)) return SIBLING;
  for (const module of WORKER_SOURCES) {
    const compiled = new URL(`dist/${module}.js`, REPO);
    if (!existsSync(compiled)) throw new WorkerFileError(`${fileURLToPath(compiled)} not found`);
    const source = new URL(`${module}.ts`, REPO);
    if (existsSync(source) && statSync(source).mtimeMs > statSync(compiled).mtimeMs) {
      throw new WorkerFileError(`dist/${module}.js is older than ${module}.ts`);
    }
  }
  return new URL("dist/adapters/verify/verify-worker.js", REPO);
}
