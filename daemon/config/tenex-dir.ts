// The project's .tenex/ directory, found or refused with the fix, without loading the
// configuration's schemas (zod, ~110 ms): a CLI command pointed at the wrong directory says so at
// once instead of after loading the whole offline read path.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "./errors.js";

export const TENEX_DIR = ".tenex";

/** The absolute project directory and its .tenex/; ConfigError when there is none. */
export function requireTenexDir(projectDir: string): { absProject: string; tenexDir: string } {
  const absProject = resolve(projectDir);
  const tenexDir = join(absProject, TENEX_DIR);
  if (!existsSync(tenexDir)) {
    throw new ConfigError(tenexDir, [{ file: TENEX_DIR, path: "", problem: `not found in ${absProject}: run \`tenexd init\` there, or pass --project DIR` }]);
  }
  return { absProject, tenexDir };
}
