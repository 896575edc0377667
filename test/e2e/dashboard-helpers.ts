// What the dashboard's browser tests share: the CLI run as the Director would, a login through
// the printed link, and plain HTTP requests to the daemon's server with chosen headers (an
// attacker's request is one a browser would not send the way the page does).

import { execFile } from "node:child_process";
import { request } from "node:http";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import { BIN } from "../helpers/daemon.js";

const run = promisify(execFile);

export async function tenexd(dir: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [BIN, ...args, "--project", dir, "--json"], { timeout: 30_000 });
  return JSON.parse(stdout);
}

/** `tenexd dashboard`'s link, opened: the page logs in and lands on the overview. */
export async function logIn(dir: string, context: BrowserContext): Promise<{ page: Page; port: number; url: string }> {
  const { url } = await tenexd(dir, "dashboard", "--no-open");
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForURL((u) => u.pathname === "/");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  return { page, port: Number(new URL(url).port), url };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (SSE answers: the first chunk, then the connection is dropped). */
export function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: text });
      res.on("data", (c: string) => {
        text += c;
        if (String(res.headers["content-type"]).startsWith("text/event-stream") && text.includes("event: hello")) {
          done();
          req.destroy();
        }
      });
      res.on("end", done);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The session cookie the browser holds, as a Cookie header, and the page's CSRF token. */
export async function sessionOf(page: Page): Promise<{ cookie: string; csrf: string }> {
  const cookies = await page.context().cookies();
  const c = cookies.find((x) => x.name === `tenexd_session_${new URL(page.url()).port}`);
  if (!c) throw new Error("no session cookie in the browser");
  const csrf = await page.evaluate(async () => (await (await fetch("/session")).json()).csrf as string);
  return { cookie: `${c.name}=${c.value}`, csrf };
}
