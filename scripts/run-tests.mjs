// Runs the vitest suite and ends with the plain line CI reads: "N passed, N failed".
// The dashboard's tests drive a real Chromium (test/helpers/browser.ts): when it is missing it
// is installed first (apt-get, as root or through sudo); when that fails, those tests fail
// saying why, they are never skipped.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CHROMIUM = process.env.TENEXD_CHROMIUM ?? "/usr/bin/chromium";

function installChromium() {
  if (existsSync(CHROMIUM)) return;
  console.log(`Chromium is missing at ${CHROMIUM} (the dashboard's browser tests need it): installing the chromium package with apt-get`);
  const root = process.getuid?.() === 0;
  const sudo = !root && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
  if (!root && !sudo) {
    console.log("cannot install Chromium: not root and no password-less sudo; the browser tests will fail (run: apt-get install -y chromium)");
    return;
  }
  const apt = (args) => spawnSync(root ? "apt-get" : "sudo", root ? args : ["-n", "apt-get", ...args], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  const updated = apt(["update"]);
  const installed = updated.status === 0 ? apt(["install", "-y", "chromium"]) : updated;
  if (installed.status !== 0 || !existsSync(CHROMIUM)) {
    console.log(`installing Chromium failed (apt-get exit ${installed.status ?? installed.error?.message}); the browser tests will fail`);
  } else console.log(`Chromium installed at ${CHROMIUM}`);
}

installChromium();

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
  // A test that never finished (its file's worker process died) neither passed nor failed in
  // the report: it did not pass, so it is counted as failed.
  const unfinished = (r.numTotalTests ?? 0) - r.numPassedTests - r.numFailedTests - skipped;
  if (unfinished > 0) {
    console.log(`${unfinished} test(s) never finished (their file's worker process died)`);
    failed += unfinished;
  }
} catch {
  failed = Math.max(failed, 1);
}
// vitest failed outside any test (an unhandled error): one failure, so the line never says 0.
if (run.status !== 0 && failed === 0) {
  console.log(`vitest exited ${run.status ?? run.signal} with every test passed: an error outside the tests (see above)`);
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
