// The fault tests' status reader (test/helpers/fault-tools.ts) never reads "no answer" as "no
// problem": a daemon not started, a closed port, an HTTP error or a body without the fields the
// checks read each fail with the reason, instead of skipping the check that needed the status.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { apiStatus, statusEventually, StatusUnreadableError } from "../helpers/fault-tools.js";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

function tenexDir(port?: number): string {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-status-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  if (port !== undefined) {
    writeFileSync(join(dir, "daemon.port"), String(port));
    writeFileSync(join(dir, "daemon.token"), "token");
  }
  return dir;
}

async function serve(status: number, body: string): Promise<number> {
  const server: Server = createServer((_req, res) => res.writeHead(status, { "content-type": "application/json" }).end(body));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  cleanup.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

describe("fault tests' status reader", () => {
  it("fails, saying why, when the daemon has written no port file", async () => {
    await expect(apiStatus(tenexDir())).rejects.toThrow(/status unreadable: no .*daemon\.port/);
  });

  it("fails when nothing answers on the port", async () => {
    const err = await apiStatus(tenexDir(await closedPort())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusUnreadableError);
    expect(String(err)).toMatch(/ECONNREFUSED/);
  });

  it("fails on an HTTP error and on a body without ingest.rejected and relays", async () => {
    await expect(apiStatus(tenexDir(await serve(503, '{"error":{"code":"busy"}}')))).rejects.toThrow(/HTTP 503/);
    await expect(apiStatus(tenexDir(await serve(200, "{}")))).rejects.toThrow(/without ingest\.rejected and relays/);
  });

  it("fails on the 403 a token that is not the owner's gets, naming it", async () => {
    const port = await serve(403, '{"error":{"code":"owner_only","message":"only the owner\'s token (.tenex/daemon.token) may read the status"}}');
    await expect(apiStatus(tenexDir(port))).rejects.toThrow(/HTTP 403: .*owner_only/);
  });

  it("sends the owner's token, from .tenex/daemon.token", async () => {
    let seen = "";
    const server: Server = createServer((req, res) => {
      seen = req.headers.authorization ?? "";
      res.writeHead(200, { "content-type": "application/json" }).end('{"ingest":{"rejected":{}},"relays":[]}');
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    cleanup.push(() => server.close());
    await apiStatus(tenexDir((server.address() as AddressInfo).port));
    expect(seen).toBe("Bearer token");
  });

  it("a poll that never reads the status times out naming the reason, not as a pass", async () => {
    const dir = tenexDir(await closedPort());
    await expect(statusEventually(dir, () => true, 300, "anything")).rejects.toThrow(/timed out waiting for anything; status unreadable: .*ECONNREFUSED/);
  });

  it("returns the status when it is there", async () => {
    const status = { ingest: { rejected: { bad_id: 2 } }, relays: [] };
    expect(await apiStatus(tenexDir(await serve(200, JSON.stringify(status))))).toEqual(status);
  });
});
