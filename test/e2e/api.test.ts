// The local HTTP API against the daemon as a child process: the token, loopback only, errors as
// JSON with their status codes, the status object, and the typed client's reads.

import { statSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TenexClient } from "../../daemon/front-desk/client/client.js";
import type { RunningDaemon, TestProject } from "../helpers/daemon.js";
import { raw, refused, useMailboxDaemon } from "./api-fixture.js";

let project: TestProject;
let daemon: RunningDaemon;
let ep: { url: string; token: string };
let api: TenexClient;
useMailboxDaemon("tenexd-api-", { maxContentBytes: 2000, unreadThreshold: 2 }, (d) => ({ project, daemon, ep, api } = d));

describe("the local API: access", () => {
  it("writes its port and a fresh 64-hex token (mode 0600) into .tenex/", () => {
    expect(ep.token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(project.tenexDir, "daemon.token")).mode & 0o777).toBe(0o600);
    expect(Number(new URL(ep.url).port)).toBeGreaterThan(0);
  });

  it("refuses a request without a token, or with a wrong one, with 401 and a JSON error", async () => {
    const missing = await raw(ep.url, "GET", "/api/v1/status");
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe("unauthorized");
    expect(missing.body.error.message).toContain(".tenex/daemon.token");
    const wrong = await raw(ep.url, "GET", "/api/v1/status", { token: "0".repeat(64) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toContain("wrong bearer token");
    const scheme = await raw(ep.url, "GET", "/api/v1/status", { headers: { authorization: `Basic ${ep.token}` } });
    expect(scheme.status).toBe(401);
    expect((await raw(ep.url, "GET", "/api/v1/status", { token: ep.token })).status).toBe(200);
  });

  it("listens on loopback only, and refuses a Host that is not loopback (DNS rebinding)", async () => {
    const port = new URL(ep.url).port;
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
    if (external) {
      const err = await fetch(`http://${external.address}:${port}/api/v1/status`).then(() => undefined, (e: unknown) => e);
      expect(err, `reachable on ${external.address}`).toBeInstanceOf(Error);
    }
    // fetch() will not send another Host: node:http will.
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/api/v1/status", headers: { host: `evil.example:${port}`, authorization: `Bearer ${ep.token}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on("error", reject).end();
    });
    expect(status).toBe(403);
  });
});

describe("the local API: errors", () => {
  it("answers 404 for an unknown endpoint or conversation, 405 for a wrong method", async () => {
    const route = await raw(ep.url, "GET", "/api/v1/nothing", { token: ep.token });
    expect(route.status).toBe(404);
    expect(route.body.error.code).toBe("not_found");
    const conv = await refused(api.conversation("CONV-9999"));
    expect([conv.status, conv.code]).toEqual([404, "not_found"]);
    expect(conv.message).toContain("CONV-9999");
    expect((await raw(ep.url, "DELETE", "/api/v1/status", { token: ep.token })).status).toBe(405);
  });

  it("answers 400 with the field named for a bad query, a bad body, bad JSON or an unknown agent", async () => {
    const q = await raw(ep.url, "GET", "/api/v1/conversations?limit=0", { token: ep.token });
    expect(q.status).toBe(400);
    expect(q.body.error.message).toMatch(/^limit: must be at least 1/);
    const typo = await raw(ep.url, "GET", "/api/v1/conversations?stauts=open", { token: ep.token });
    expect(typo.status).toBe(400);
    const body = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: { from: "coder", content: "hi" } });
    expect(body.status).toBe(400);
    expect(body.body.error.message).toContain("give exactly one of conversation");
    const json = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: "{not json" });
    expect([json.status, json.body.error.code]).toEqual([400, "bad_json"]);
    const ghost = await refused(api.inbox("ghost", { limit: 10, offset: 0 }));
    expect(ghost.status).toBe(400);
    expect(ghost.message).toContain("the agents are orchestrator, planner, coder, reviewer");
  });

  it("refuses a query parameter the endpoint does not take, or one given twice, naming it (400)", async () => {
    const conv = (await api.sendDirect({ from: "coder", to: "planner", content: "query check" })).conversationId;
    const cases: [string, string, RegExp][] = [
      ["GET", "/api/v1/status?verbose=1", /"verbose".*takes none/],
      ["GET", "/api/v1/stats?since=10", /"since"/],
      ["GET", `/api/v1/conversations/${conv}/messages?limit=5`, /"limit"/],
      ["GET", `/api/v1/conversations/${conv}/routing?x=1`, /"x"/],
      ["GET", `/api/v1/messages/${conv}?full=true`, /"full"/],
      ["POST", `/api/v1/conversations/${conv}/read?agent=planner`, /"agent"/],
      ["GET", "/api/v1/conversations?stauts=open", /"stauts".*takes q, phase, status/],
      ["GET", "/api/v1/conversations?limit=1&limit=500", /"limit" is given twice/],
    ];
    for (const [method, path, message] of cases) {
      const r = await raw(ep.url, method, path, { token: ep.token, ...(method === "POST" ? { body: { agent: "planner" } } : {}) });
      expect([r.status, r.body.error.code], path).toEqual([400, "unknown_parameter"]);
      expect(r.body.error.message, path).toMatch(message);
    }
    // The same requests without the stray parameter are fine.
    expect((await raw(ep.url, "GET", `/api/v1/conversations/${conv}/messages`, { token: ep.token })).status).toBe(200);
  });

  it("refuses a body over 1 MB with 413", async () => {
    const big = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: JSON.stringify({ content: "x".repeat(1_100_000) }) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("body_too_large");
  });
});

describe("the local API: status and reads", () => {
  it("status: uptime, relays with health and lag, queues, rejections, unread per agent, turns", async () => {
    await api.sendDirect({ from: "planner", to: "coder", content: "status check 1" });
    await api.sendDirect({ from: "planner", to: "coder", content: "status check 2" });
    await api.sendDirect({ from: "planner", to: "coder", content: "status check 3" });
    const s = await api.status();
    expect(s.pid).toBe(daemon.child.pid);
    expect(s.uptimeMs).toBeGreaterThan(0);
    expect(s.relays).toHaveLength(1);
    expect(s.relays[0]!.connected).toBe(true);
    expect(s.lag[0]!.url).toBe(s.relays[0]!.url);
    expect(s.queues).toEqual(expect.objectContaining({ queued: expect.any(Number), running: expect.any(Number) }));
    expect(s.ingest.rejected).toEqual(expect.any(Object));
    expect(s.unread.byAgent.find((a) => a.slug === "coder")!.unread).toBeGreaterThanOrEqual(3);
    // limits.unreadThreshold is 2 in this project: the coder is behind.
    expect(s.unread.overThreshold).toContain("coder");
    expect(s.turns).toEqual({ open: 0, stuck: [] });
  });

  it("conversations: search by title or text, filters, pages with the total", async () => {
    await api.discuss({ from: "orchestrator", scope: "all", title: "Zebra naming", content: "names for the release" });
    await api.discuss({ from: "orchestrator", scope: "all", title: "Other topic", content: "the word xylophone is in here" });
    expect((await api.conversations({ q: "zebra", limit: 10, offset: 0 })).items.map((c) => c.title)).toEqual(["Zebra naming"]);
    expect((await api.conversations({ q: "XYLOPHONE", limit: 10, offset: 0 })).items.map((c) => c.title)).toEqual(["Other topic"]);
    // FTS5 query syntax typed into the search box is searched as words, over HTTP too.
    for (const q of ['"xylophone', "xylophone*", "(word xylophone", "-xylophone", "xylophone)", "word:xylophone"]) {
      expect((await api.conversations({ q, limit: 10, offset: 0 })).items.map((c) => c.title), q).toEqual(["Other topic"]);
    }
    expect((await api.conversations({ q: "xyloph", limit: 10, offset: 0 })).total).toBe(0); // whole words
    const all = await api.conversations({ limit: 1, offset: 0 });
    expect(all.total).toBeGreaterThanOrEqual(3);
    expect(all.items).toHaveLength(1);
    const second = await api.conversations({ limit: 1, offset: 1 });
    expect(second.items[0]!.id).not.toBe(all.items[0]!.id);
    expect((await api.conversations({ participant: "reviewer", limit: 50, offset: 0 })).items.map((c) => c.title)).toEqual(
      expect.arrayContaining(["Zebra naming", "Other topic"]),
    );
  });

  it("one conversation: its timeline, phase, turns, execution time; its audit trail; stats", async () => {
    const sent = await api.sendDirect({ from: "reviewer", to: "planner", content: "audit me", type: "feedback" });
    const d = await api.conversation(sent.conversationAlias!);
    expect(d.conversation.id).toBe(sent.conversationId);
    expect(d.phase.current).toBe("chat");
    expect(d.execution).toEqual({ totalMs: 0, running: false });
    expect(d.timeline.find((e) => e.kind === "message")).toEqual(expect.objectContaining({ alias: sent.alias, from: "reviewer", content: "audit me" }));
    const trail = await api.auditTrail(sent.conversationId);
    expect(trail.alias).toBe(sent.conversationAlias);
    expect(trail.entries.map((e) => e.kind)).toEqual(["message"]);
    const stats = await api.stats();
    expect(stats.conversations.total).toBeGreaterThanOrEqual(4);
    expect(stats.agents.map((a) => a.slug)).toEqual(["orchestrator", "planner", "coder", "reviewer"]);
  });

  it("GET /api/v1/messages filters by conversation, recipient and type; GET /messages/:id gives the whole event", async () => {
    const a = await api.sendDirect({ from: "coder", to: "reviewer", content: "a decision", type: "decision" });
    await api.sendDirect({ from: "coder", to: "reviewer", content: "just data", type: "data" });
    const decisions = await api.messages({ recipient: "reviewer", type: "decision", limit: 50, offset: 0 });
    expect(decisions.items.map((m) => m.preview)).toEqual(["a decision"]);
    const inConv = await api.messages({ conversation: a.conversationAlias!, order: "asc", limit: 50, offset: 0 });
    expect(inConv.items.map((m) => m.preview)).toEqual(["a decision", "just data"]);
    expect(inConv.items[0]!.to).toEqual(["reviewer"]);
    const full = await api.message(a.alias!);
    expect(full.event.id).toBe(a.event.id);
    expect(full.content).toBe("a decision");
    const raw1 = await raw(ep.url, "GET", `/api/v1/messages?conversation=${a.conversationId}&recipient=reviewer&type=data`, { token: ep.token });
    expect(raw1.body.items.map((m: { preview: string }) => m.preview)).toEqual(["just data"]);
  });
});
