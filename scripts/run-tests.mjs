// Runs the vitest suite and ends with the plain line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "tenexd-vitest-"));
const out = join(dir, "results.json");
const args = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)];
const run = spawnSync("npx", args, { stdio: "inherit" });

let passed = 0;
let failed = 0;
// Skipped tests are printed, never counted as passed: a skip is a check that did not run.
let skipped = 0;
try {
  const r = JSON.parse(readFileSync(out, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A file that fails outside its tests (does not load, a beforeAll hook throws) has no failed
  // test of its own, yet it failed: count it once.
  for (const s of r.testResults ?? []) {
    if (s.status === "failed" && !s.assertionResults.some((a) => a.status === "failed")) failed++;
  }
} catch {
  failed = Math.max(failed, 1);
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
