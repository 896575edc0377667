// A real browser for the dashboard's tests and figures: Debian's Chromium driven by playwright-core
// (nothing is downloaded: `npm test` installs the chromium package when it is missing, see
// scripts/run-tests.mjs). Headless, a fresh profile per launch. When Chromium is not there the
// tests FAIL saying so: a browser test that does not run is not a pass.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.TENEXD_CHROMIUM ?? "/usr/bin/chromium";

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `hostMap`: names Chromium resolves to 127.0.0.1 (a DNS rebinding attacker's domain). */
export async function launchBrowser(opts: { hostMap?: string[] } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: the dashboard's browser tests cannot run (npm test installs it with apt-get install chromium; install it, or set TENEXD_CHROMIUM)`);
  }
  const profile = mkdtempSync(join(tmpdir(), "tenexd-chromium-"));
  const rules = (opts.hostMap ?? []).map((h) => `MAP ${h} 127.0.0.1`).join(",");
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--no-first-run", "--disable-quic", ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
