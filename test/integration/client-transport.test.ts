// The CLI's client over node:http (daemon/front-desk/client/http-request.ts), against real
// loopback servers that misbehave as a dead, stalled or refusing daemon would: every failure is
// a named error with its cause, never a hang; what is sent arrives byte for byte.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { ApiClientError, DaemonUnreachableError } from "../../daemon/front-desk/client/errors.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("TenexClient transport", () => {
  it("sends the token and a UTF-8 body whole, and reads the JSON answer", async () => {
    const seen: { auth?: string; type?: string; body?: string; path?: string } = {};
    const url = await serve((req, body, res) => {
      Object.assign(seen, { auth: req.headers.authorization, type: req.headers["content-type"], body, path: req.url });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ url: "http://127.0.0.1/d", expiresAt: 1 }));
    });
    const client = new TenexClient({ url, token: "tok-1" });
    const content = "déjà vu — 日本語 ✓ ".repeat(2_000);
    await client.sendDirect({ from: "a", to: "b", content });
    expect(seen.auth).toBe("Bearer tok-1");
    expect(seen.type).toBe("application/json");
    expect(seen.path).toBe("/api/v1/messages");
    expect(JSON.parse(seen.body!).content).toBe(content);
  });

  it("an error answer becomes ApiClientError with the API's status, code and message", async () => {
    const url = await serve((_req, _body, res) => {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { code: "not_found", message: "no conversation CONV-9" } }));
    });
    const err = await new TenexClient({ url, token: "t" }).status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiClientError);
    expect(err).toMatchObject({ status: 404, code: "not_found", message: "no conversation CONV-9" });
  });

  it("nothing listening: DaemonUnreachableError naming ECONNREFUSED", async () => {
    const url = await serve(() => undefined);
    await new Promise((r) => { const s = servers.pop()!; s.close(r); });
    const err = await new TenexClient({ url, token: "t" }).status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonUnreachableError);
    expect(String((err as Error).message)).toMatch(/ECONNREFUSED/);
  });

  it("a daemon that stalls mid-answer: DaemonUnreachableError (ETIMEDOUT) once the timeout passes, not a hang", async () => {
    const url = await serve((_req, _body, res) => {
      res.setHeader("content-type", "application/json");
      res.write('{"partial":'); // …and never ends
    });
    const started = performance.now();
    const err = await new TenexClient({ url, token: "t" }, 300).status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonUnreachableError);
    expect(String((err as Error).message)).toMatch(/ETIMEDOUT/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});
