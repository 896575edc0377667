// Temporary directories for one test file, removed once its tests are done. Made without this,
// a full test run left ~130 directories behind in /tmp, and a machine that keeps its state (CI's
// does) gathers them run after run.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

// Registered when a test file first imports this module: each file has its own module graph.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the system's temp directory, named `prefix` + random characters. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
