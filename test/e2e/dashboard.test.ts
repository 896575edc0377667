// The Director's dashboard in a real browser (Chromium through playwright-core) against the
// daemon as a child process with the demo project (its command agents answer): the login link,
// live pages (a conversation asked from the CLI appears and fills without a reload), filters and
// search, stopping a slow agent, content rendered as text; then, with the daemon stopped, the
// read-only dashboard. Screenshots of every page go to test/artifacts/ for a reviewer.
// The attacks on the session (no cookie, other origins, a rebinding host name, no CSRF token)
// are in dashboard-security.test.ts.

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { BIN, eventually, makeProject, readLog, ROOT, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { startTestRelay, type TestRelay } from "../helpers/relay.js";
import { logIn, raw, tenexd } from "./dashboard-helpers.js";

let tmp: string;
let relay: TestRelay;
let project: TestProject;
let daemon: RunningDaemon | undefined;
let browser: TestBrowser;
let page: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];
const ARTIFACTS = join(ROOT, "test/artifacts");

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-dashboard-"));
  relay = await startTestRelay();
  project = makeProject(join(tmp, "p"), (c) => {
    c.relays = [relay.url];
  });
  // The reviewer never answers: a run to stop.
  const agentsFile = join(project.tenexDir, "agents.json");
  const agents = JSON.parse(readFileSync(agentsFile, "utf8"));
  agents.agents.find((a: { slug: string }) => a.slug === "reviewer").backend = {
    type: "command", command: ["node", join(ROOT, "test/fixtures/agents/sleep.mjs")], timeoutSeconds: 120,
  };
  writeFileSync(agentsFile, JSON.stringify(agents, null, 2));
  daemon = await startDaemon(project.dir);
  browser = await launchBrowser();
  page = (await logIn(project.dir, browser.context)).page;
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Follows a link of the page (no reload: the page's marker survives). */
async function go(path: string, name: string): Promise<void> {
  await page.getByRole("link", { name, exact: true }).first().click();
  await at(page, (u) => u.pathname + u.search === path);
}

/** The page's address, once it matches (in-app navigation changes it without a load). */
const at = (p: Page, ok: (u: URL) => boolean) => eventually(() => (ok(new URL(p.url())) ? true : undefined), 10_000, "the address");

const noReload = async () => expect(await page.evaluate(() => (window as any).__tenexdMarker)).toBe("still here");

describe("the dashboard, live", () => {
  it("logs in with the printed link: a session cookie, and no code left in the address", async () => {
    expect(new URL(page.url()).hash).toBe("");
    expect(page.url()).not.toContain("code");
    const cookie = (await browser.context.cookies()).find((c) => c.name.startsWith("tenexd_session_"))!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    // Nothing in the page's scripts or markup holds it.
    expect(await page.content()).not.toContain(cookie.value);
    await page.evaluate(() => ((window as any).__tenexdMarker = "still here"));
  });

  it("a conversation asked with `tenexd ask` appears on the list, and its timeline fills as the agents answer, without a reload", async () => {
    await go("/conversations", "Conversations");
    await expect(page.getByText("0 conversations")).toBeDefined();
    const asked = await tenexd(project.dir, "ask", "-m", "Please add a health endpoint", "--title", "Health endpoint");
    const row = page.locator(`tr[data-id="${asked.conversationId}"]`);
    await row.waitFor({ timeout: 15_000 });
    await noReload();
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: "Health endpoint" }).waitFor();
    // The orchestrator routes, the planner and the coder answer: each message appears as it is acknowledged.
    await eventually(async () => ((await page.locator(".timeline .msg").count()) >= 4 ? true : undefined), 40_000, "four messages on the page");
    await expect(page.locator(".timeline").getByText(/phase chat → plan|turn 1/).first().isVisible()).resolves.toBe(true);
    await noReload();
  }, 60_000);

  it("searches and filters the list", async () => {
    await tenexd(project.dir, "ask", "-m", "Feed the zebra", "--title", "Unique zebra task", "--to", "planner");
    await go("/conversations", "Conversations");
    await page.locator("tr[data-id]").nth(1).waitFor();
    await page.getByLabel("Search").fill("zebra");
    await page.getByRole("button", { name: "Filter" }).click();
    await at(page, (u) => /q=zebra/.test(u.search));
    await eventually(async () => ((await page.locator("tr[data-id]").count()) === 1 ? true : undefined), 10_000, "one match");
    await expect(page.locator("tr[data-id]").first().textContent()).resolves.toContain("Unique zebra task");
    // Close it from its page, then filter by status.
    await page.locator("tr[data-id] a").first().click();
    await page.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "Reopen" }).waitFor();
    await go("/conversations", "Conversations");
    await page.getByLabel("Status").selectOption("closed");
    await page.getByRole("button", { name: "Filter" }).click();
    await at(page, (u) => /status=closed/.test(u.search));
    await eventually(async () => {
      const titles = await page.locator("tr[data-id]").allTextContents();
      return titles.length === 1 && titles[0]!.includes("Unique zebra task") ? true : undefined;
    }, 10_000, "only the closed conversation");
    await page.getByLabel("Status").selectOption("open");
    await page.getByRole("button", { name: "Filter" }).click();
    await at(page, (u) => /status=open/.test(u.search));
    await eventually(async () => {
      const titles = await page.locator("tr[data-id]").allTextContents();
      return titles.length >= 1 && titles.every((t) => !t.includes("zebra")) ? true : undefined;
    }, 10_000, "open conversations only");
    await noReload();
  }, 60_000);

  it("stops a running command agent from the Agents page: its program is killed and the run recorded as stopped", async () => {
    await go("/agents", "Agents");
    const asked = await tenexd(project.dir, "ask", "-m", "Review this, slowly", "--title", "Slow review", "--to", "reviewer");
    const stop = page.getByRole("button", { name: "Stop reviewer" });
    await stop.waitFor({ timeout: 15_000 });
    const started = Date.now();
    await stop.click();
    const row = page.locator('tr[data-agent="reviewer"]');
    await eventually(async () => ((await row.textContent())?.includes("stopped") ? true : undefined), 15_000, "the run shown as stopped");
    // sleep.mjs answers only after 60 s: the run ended because its process was killed.
    expect(Date.now() - started).toBeLessThan(30_000);
    const run = await eventually(() => readLog(project.tenexDir, asked.conversationId).find((r) => r.t === "agent_run"), 10_000, "the run's record");
    // Recorded as a stop request's run is, by the owner (who the dashboard acts for), with no request event.
    expect(run).toMatchObject({ outcome: "stopped", error: { kind: "stopped" }, stoppedBy: { by: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(run.stoppedBy.eventId).toBeUndefined();
    await noReload();
  }, 60_000);

  it("renders a title and content holding <script> and <img onerror> as text: nothing runs", async () => {
    const evil = `<script>alert("xss-script")</script><img src=x onerror="alert('xss-img')">`;
    const asked = await tenexd(project.dir, "ask", "-m", `body ${evil}`, "--title", `T ${evil}`, "--to", "planner");
    await go("/conversations", "Conversations");
    const row = page.locator(`tr[data-id="${asked.conversationId}"]`);
    await row.waitFor({ timeout: 15_000 });
    await expect(row.textContent()).resolves.toContain(`T ${evil}`);
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: `T ${evil}` }).waitFor();
    await page.locator(".timeline .msg").first().waitFor();
    await expect(page.locator(".timeline .msg .content").first().textContent()).resolves.toBe(`body ${evil}`);
    await page.waitForTimeout(500);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await noReload();
  }, 60_000);

  it("resumes a stream from Last-Event-ID, and tells a page too far behind to reload", async () => {
    const { cookie } = await import("./dashboard-helpers.js").then((m) => m.sessionOf(page));
    const port = Number(new URL(page.url()).port);
    const fresh = await raw(port, "GET", "/api/v1/events", { cookie });
    const id = Number(/id: (\d+)\nevent: hello/.exec(fresh.body)![1]);
    expect(id).toBeGreaterThan(0);
    const resumed = await raw(port, "GET", "/api/v1/events", { cookie, "last-event-id": String(id - 1) });
    expect(resumed.body).toContain(`id: ${id}\n`);
    expect(resumed.body).not.toContain("event: reload");
    const behind = await raw(port, "GET", "/api/v1/events", { cookie, "last-event-id": String(id + 1000) });
    expect(behind.body).toContain("event: reload");
  });

  it("writes a screenshot of each page, light and dark, narrow and wide, to test/artifacts/", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const conv = (await tenexd(project.dir, "conversations")).items.find((c: { title: string }) => c.title === "Health endpoint");
    const pages: [string, string][] = [["overview", "/"], ["conversations", "/conversations"], ["conversation", `/conversations/${conv.id}`], ["agents", "/agents"], ["stats", "/stats"]];
    let written = 0;
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [w, h, size] of [[1280, 900, "wide"], [400, 800, "narrow"]] as const) {
        await page.setViewportSize({ width: w, height: h });
        for (const [name, path] of pages) {
          await page.evaluate((p) => {
            history.pushState(null, "", p);
            dispatchEvent(new Event("tenexd:navigate"));
          }, path);
          await page.locator("main h1").first().waitFor();
          await page.waitForTimeout(300);
          await page.screenshot({ path: join(ARTIFACTS, `${name}-${scheme}-${size}.png`), fullPage: true });
          written++;
        }
      }
    }
    expect(written).toBe(20);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

describe("the dashboard with the daemon stopped", () => {
  it("serves the read-only views from the index, says so, and disables the actions", async () => {
    await daemon!.stop();
    daemon = undefined;
    const child = spawn(process.execPath, [BIN, "dashboard", "--project", project.dir, "--no-open", "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (c: Buffer) => {
          out += c.toString();
          const line = out.split("\n").find((l) => l.startsWith("{"));
          if (line && out.includes("\n")) resolve(JSON.parse(line).url);
        });
        child.on("exit", (code) => reject(new Error(`tenexd dashboard exited (${code})`)));
      });
      const offline = await browser.context.newPage();
      await offline.goto(url);
      await offline.waitForURL((u) => u.pathname === "/");
      await offline.getByRole("status").filter({ hasText: "read-only" }).waitFor();
      await offline.getByRole("link", { name: "Conversations", exact: true }).click();
      const row = offline.locator("tr[data-id]", { hasText: "Health endpoint" });
      await row.waitFor();
      await expect(offline.locator("details.ask button").isDisabled()).resolves.toBe(true);
      await row.getByRole("link").click();
      await offline.getByRole("heading", { name: "Health endpoint" }).waitFor();
      await expect(offline.getByRole("button", { name: "Reply" }).isDisabled()).resolves.toBe(true);
      // The server refuses changes too, not only the page.
      const port = Number(new URL(url).port);
      const { cookie, csrf } = await import("./dashboard-helpers.js").then((m) => m.sessionOf(offline));
      const refused = await raw(port, "POST", "/api/v1/ask", { cookie, "x-csrf-token": csrf, origin: `http://127.0.0.1:${port}`, "content-type": "application/json" }, JSON.stringify({ content: "hi" }));
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body).error.code).toBe("read_only");
      // No CLI may take this process for the daemon.
      expect(() => readFileSync(join(project.tenexDir, "daemon.port"))).toThrow();
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);
});
