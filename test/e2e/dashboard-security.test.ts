// The dashboard's session attacked as a stranger would (docs/dashboard.md, "Security"), with the
// daemon as a child process and a real browser: a request without the session cookie; a login
// code used twice; a page of another origin (another port of 127.0.0.1: the same *site*, so
// SameSite lets the cookie go along) posting to the daemon; a hostile DNS name that resolves to
// 127.0.0.1 (DNS rebinding); a change without the CSRF token; and the headers every page carries.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { makeProject, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { startTestRelay, type TestRelay } from "../helpers/relay.js";
import { logIn, raw, sessionOf, tenexd } from "./dashboard-helpers.js";

let tmp: string;
let relay: TestRelay;
let project: TestProject;
let daemon: RunningDaemon;
let browser: TestBrowser;
let page: Page;
let port: number;
let evil: Server;
let evilPort: number;
let conversation: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-dashboard-sec-"));
  relay = await startTestRelay();
  project = makeProject(join(tmp, "p"), (c) => {
    c.relays = [relay.url];
  });
  daemon = await startDaemon(project.dir);
  browser = await launchBrowser({ hostMap: ["rebind.example"] });
  ({ page, port } = await logIn(project.dir, browser.context));
  conversation = (await tenexd(project.dir, "ask", "-m", "A target", "--title", "Target", "--to", "planner")).conversationId;
  // The attacker's site: another port on loopback. Its page tries to close the conversation.
  evil = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>evil</title><script>
      const target = "http://127.0.0.1:${port}";
      window.results = {};
      fetch(target + "/api/v1/conversations/${conversation}/close", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: "{}" })
        .then(() => (window.results.close = "sent"), (e) => (window.results.close = "error " + e));
      fetch(target + "/api/v1/conversations", { credentials: "include" })
        .then((r) => r.text()).then((t) => (window.results.read = t), (e) => (window.results.read = "blocked"));
    </script>`);
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", () => r()));
  evilPort = (evil.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  evil?.close();
  await browser?.close();
  await daemon?.stop();
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const statusOf = async (id: string) => (await tenexd(project.dir, "show", "-c", id)).conversation.status as string;

describe("the dashboard's session under attack", () => {
  it("without the session cookie: 401 for the API and the live stream, the login page for the app's pages", async () => {
    const api = await raw(port, "GET", "/api/v1/conversations", {});
    expect(api.status).toBe(401);
    const sse = await raw(port, "GET", "/api/v1/events", { accept: "text/event-stream" });
    expect(sse.status).toBe(401);
    expect(sse.body).not.toContain("event:");
    const forged = await raw(port, "GET", "/api/v1/conversations", { cookie: `tenexd_session_${port}=forged-session-id` });
    expect(forged.status).toBe(401);
    for (const path of ["/", "/conversations", `/conversations/${conversation}`, "/agents", "/stats"]) {
      const html = await raw(port, "GET", path, {});
      expect(html.status).toBe(401);
      expect(html.body).toContain("Login code");
      expect(html.body).not.toContain("/ui/app.js");
    }
    // In a fresh browser (no cookie) the app's address shows the login page.
    const stranger = await browser.context.browser()?.newContext();
    if (stranger) {
      const p = await stranger.newPage();
      await p.goto(`http://127.0.0.1:${port}/conversations`);
      await p.getByLabel("Login code").waitFor();
      await stranger.close();
    }
  });

  it("a login code works once", async () => {
    const { url } = await tenexd(project.dir, "dashboard", "--no-open");
    const code = new URL(url).hash.slice("#code=".length);
    const login = (c: string) => raw(port, "POST", "/session", { origin: `http://127.0.0.1:${port}`, "content-type": "application/json" }, JSON.stringify({ code: c }));
    const first = await login(code);
    expect(first.status).toBe(200);
    expect(String(first.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    const again = await login(code);
    expect(again.status).toBe(401);
    expect(again.headers["set-cookie"]).toBeUndefined();
  });

  it("a page of another origin on the same host cannot change anything or read anything, though its requests carry the cookie", async () => {
    const attacker = await browser.context.newPage();
    await attacker.goto(`http://127.0.0.1:${evilPort}/`);
    await attacker.waitForFunction(() => (window as any).results.close && (window as any).results.read);
    const results = await attacker.evaluate(() => (window as any).results);
    // The read is blocked by the browser (no CORS header); the change reached the daemon and was refused.
    expect(results.read).toBe("blocked");
    await attacker.close();
    expect(await statusOf(conversation)).toBe("open");
    // What the daemon answers to such a request, the cookie and even the right CSRF token with it: the Origin alone refuses it.
    const { cookie, csrf } = await sessionOf(page);
    const fromEvil = await raw(port, "POST", `/api/v1/conversations/${conversation}/close`, {
      cookie, "x-csrf-token": csrf, origin: `http://127.0.0.1:${evilPort}`, "content-type": "application/json",
    }, "{}");
    expect(fromEvil.status).toBe(403);
    expect(JSON.parse(fromEvil.body).error.code).toBe("forbidden_origin");
    const readFromEvil = await raw(port, "GET", "/api/v1/conversations", { cookie, origin: "http://evil.example" });
    expect(readFromEvil.status).toBe(403);
    expect(await statusOf(conversation)).toBe("open");
  });

  it("a hostile DNS name resolving to 127.0.0.1 (DNS rebinding) gets nothing", async () => {
    const p = await browser.context.newPage();
    const answer = await p.goto(`http://rebind.example:${port}/api/v1/conversations`);
    expect(answer?.status()).toBe(403);
    expect(await answer?.text()).toContain("forbidden_host");
    await p.close();
    const { cookie } = await sessionOf(page);
    const wrongHost = await raw(port, "GET", "/api/v1/conversations", { cookie, host: `rebind.example:${port}` });
    expect(wrongHost.status).toBe(403);
    // The right name with another port is not this server either.
    const wrongPort = await raw(port, "GET", "/api/v1/conversations", { cookie, host: `127.0.0.1:${port + 1}` });
    expect(wrongPort.status).toBe(403);
  });

  it("a change without the session's CSRF token is refused, from the page itself too", async () => {
    const fromPage = await page.evaluate(async (id) => {
      const r = await fetch(`/api/v1/conversations/${id}/close`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return { status: r.status, body: await r.json() };
    }, conversation);
    expect(fromPage.status).toBe(403);
    expect(fromPage.body.error.code).toBe("csrf");
    const { cookie, csrf } = await sessionOf(page);
    const wrong = await raw(port, "POST", `/api/v1/conversations/${conversation}/close`, {
      cookie, "x-csrf-token": `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "B" : "A"}`, origin: `http://127.0.0.1:${port}`, "content-type": "application/json",
    }, "{}");
    expect(wrong.status).toBe(403);
    expect(await statusOf(conversation)).toBe("open");
    // With the token, the same request works: what refused the others was the token.
    const right = await page.evaluate(async ({ id, token }) => {
      const r = await fetch(`/api/v1/conversations/${id}/close`, { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": token }, body: "{}" });
      return r.status;
    }, { id: conversation, token: csrf });
    expect(right).toBe(200);
    expect(await statusOf(conversation)).toBe("closed");
  });

  it("every answer carries a strict Content-Security-Policy, no sniffing, no Referer, no framing", async () => {
    for (const path of ["/login", "/ui/app.js", "/api/v1/conversations"]) {
      const r = await raw(port, "GET", path, {});
      const csp = String(r.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers["referrer-policy"]).toBe("no-referrer");
    }
    // The policy at work: an inline script injected into the page does not run.
    const ran = await page.evaluate(async () => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = 1";
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return (window as any).__inline === 1;
    });
    expect(ran).toBe(false);
  });
});
