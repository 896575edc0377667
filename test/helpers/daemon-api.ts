// The fault tests' reader of a running daemon's API (docs/api.md), as the owner: it sends the
// owner's token (`.tenex/daemon.token`; a mailbox agent's token in `.tenex/tokens/` is refused
// `GET /status` with 403 owner_only). A status that cannot be read is an error saying why, never
// "no status" that a check could read as "nothing to check" (issue 13).

import { get } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "./daemon.js";

/** Why the status could not be read: a check that needs it fails with this, never passes without it. */
export class StatusUnreadableError extends Error {}

// Long enough for a daemon on a loaded 2-core machine (5 s gave up under the whole suite once);
// short enough that a hung API fails the test that waits on it with this reason.
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * One GET as the owner, on a connection of its own: a kept-alive connection left idle while the
 * test blocked on a CLI run (spawnSync) can be closed by the server under the next request.
 * Rejects with the reason (no port or token file, connection refused, timeout).
 */
export function apiGet(tenexDir: string, path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: number; text: string }> {
  const portFile = join(tenexDir, "daemon.port");
  const tokenFile = join(tenexDir, "daemon.token");
  for (const f of [portFile, tokenFile]) {
    if (!existsSync(f)) return Promise.reject(new Error(`no ${f} (the daemon is not running, or not ready)`));
  }
  const port = Number(readFileSync(portFile, "utf8").trim());
  const token = readFileSync(tokenFile, "utf8").trim();
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path, agent: false, timeout: timeoutMs, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (e: NodeJS.ErrnoException) => reject(new Error(`GET http://127.0.0.1:${port}${path} failed: ${e.message}${e.code ? ` (${e.code})` : ""}`)));
  });
}

/** The status, or a sentence saying why it could not be read. */
export async function statusOrWhy(tenexDir: string): Promise<Record<string, any> | string> {
  let res: { status: number; text: string };
  try {
    res = await apiGet(tenexDir, "/api/v1/status");
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const { status, text } = res;
  if (status !== 200) return `GET /api/v1/status answered HTTP ${status}: ${text.slice(0, 300)}`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `GET /api/v1/status answered with a body that is not JSON: ${text.slice(0, 300)}`;
  }
  if (typeof body?.ingest?.rejected !== "object" || !Array.isArray(body?.relays)) {
    return `GET /api/v1/status answered without ingest.rejected and relays[]: ${text.slice(0, 300)}`;
  }
  return body;
}

/**
 * The daemon's status (`GET /api/v1/status`). Throws StatusUnreadableError, saying why, when it
 * cannot be read: no `.tenex/daemon.port` or token yet, nothing answering on the port, an HTTP
 * error (403 if the token is not the owner's), or a body without the fields the fault tests read
 * (`ingest.rejected`, `relays`). Polls use `statusEventually`.
 */
export async function apiStatus(tenexDir: string): Promise<any> {
  const got = await statusOrWhy(tenexDir);
  if (typeof got === "string") throw new StatusUnreadableError(`status unreadable: ${got}`);
  return got;
}

/**
 * Polls the status until `check` returns a value, and returns it. A status that cannot be read
 * yet is polled again (a daemon starting, restarting); a timeout says what the status last was,
 * or why it was unreadable.
 */
export async function statusEventually<T>(tenexDir: string, check: (status: any) => T | undefined, timeoutMs: number, what: string): Promise<T> {
  let last: unknown = "never read";
  try {
    return await eventually(async () => {
      const got = await statusOrWhy(tenexDir);
      last = got;
      return typeof got === "string" ? undefined : check(got);
    }, timeoutMs, what);
  } catch (e) {
    const seen = typeof last === "string" ? `status unreadable: ${last}` : `last status: ${JSON.stringify(last).slice(0, 1_500)}`;
    throw new Error(`${e instanceof Error ? e.message : String(e)}; ${seen}`);
  }
}
