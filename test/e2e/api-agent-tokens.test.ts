// Each mailbox agent gets its own API token (.tenex/tokens/<slug>.token), which acts as that
// agent only: its inbox and context, posting as it, its read marks. Acting as another agent or
// using the owner's powers (ask, close, reopen, the Director's status) is refused with 403 and
// changes nothing. The owner's token (.tenex/daemon.token) keeps every power. Written as a
// mailbox agent gone rogue would try it: its own token, every other identity.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import type { RunningDaemon, TestProject } from "../helpers/daemon.js";
import { raw, refused, useMailboxDaemon } from "./api-fixture.js";

let project: TestProject;
let daemon: RunningDaemon;
let owner: TenexClient;
let ep: { url: string; token: string };
useMailboxDaemon("tenexd-tokens-", {}, (d) => ({ project, daemon, api: owner, ep } = d));

const tokenFile = (slug: string) => join(project.tenexDir, "tokens", `${slug}.token`);

async function forbidden(p: Promise<unknown>, code: string): Promise<void> {
  const err = await refused(p);
  expect([err.status, err.code], err.message).toEqual([403, code]);
}

describe("per-agent API tokens", () => {
  it("each mailbox agent has its own token file (0600, in a 0700 directory), none the owner's", () => {
    expect(statSync(join(project.tenexDir, "tokens")).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(project.tenexDir, "tokens")).sort()).toEqual(["coder.token", "orchestrator.token", "planner.token", "reviewer.token"]);
    const tokens = ["coder", "orchestrator", "planner", "reviewer"].map((slug) => {
      expect(statSync(tokenFile(slug)).mode & 0o777).toBe(0o600);
      return readFileSync(tokenFile(slug), "utf8").trim();
    });
    for (const t of tokens) expect(t).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set([...tokens, ep.token]).size).toBe(5);
  });

  it("an agent's token acts as that agent: inbox, context, post, read marks, ack", async () => {
    const coder = TenexClient.forProject(project.dir, { agent: "coder" });
    const asked = await owner.ask({ content: "Write the parser", to: ["coder"] });
    expect((await coder.inbox("coder", { limit: 10, offset: 0 })).items.map((m) => m.id)).toContain(asked.event.id);
    expect((await coder.context("coder", asked.conversationId)).trigger.id).toBe(asked.event.id);
    const replied = await coder.reply({ from: "coder", conversation: asked.conversationId, content: "on it", recipients: ["reviewer"] });
    expect(replied.event.pubkey).toBe(project.agents.coder);
    expect((await coder.sendDirect({ from: "coder", to: "planner", content: "quick question" })).created).toBe(true);
    expect((await coder.markRead(asked.conversationId, "coder")).changed).toBe(true);
    expect((await coder.ack(asked.event.id, project.agents.coder!)).agent).toBe("coder");
    // The project's shared record reads the same with any token.
    expect((await coder.conversation(asked.conversationId)).conversation.id).toBe(asked.conversationId);
    expect((await coder.message(replied.event.id)).content).toBe("on it");
    expect((await coder.stats()).conversations.total).toBeGreaterThan(0);
  });

  it("it cannot act as another agent (by slug or pubkey) nor use the owner's powers: 403, nothing changes", async () => {
    const coder = TenexClient.forProject(project.dir, { agent: "coder" });
    const asked = await owner.ask({ content: "Review this", to: ["reviewer"] });
    const before = (await owner.auditTrail(asked.conversationId)).entries.length;
    const reviewer = project.agents.reviewer!;
    await forbidden(coder.reply({ from: "reviewer", conversation: asked.conversationId, content: "LGTM (forged)" }), "not_this_agent");
    await forbidden(coder.reply({ from: reviewer, conversation: asked.conversationId, content: "LGTM (forged)" }), "not_this_agent");
    await forbidden(coder.sendDirect({ from: "reviewer", to: "planner", content: "forged" }), "not_this_agent");
    await forbidden(coder.discuss({ from: "orchestrator", scope: "all", content: "forged" }), "not_this_agent");
    await forbidden(coder.inbox("reviewer", { limit: 10, offset: 0 }), "not_this_agent");
    await forbidden(coder.context("reviewer", asked.conversationId), "not_this_agent");
    await forbidden(coder.markRead(asked.conversationId, "reviewer"), "not_this_agent");
    await forbidden(coder.markViewed(asked.conversationId, reviewer), "not_this_agent");
    await forbidden(coder.ack(asked.event.id, "reviewer"), "not_this_agent");
    await forbidden(coder.output("reviewer", { conversation: asked.conversationId, output: { reply: "forged" } }), "not_this_agent");
    await forbidden(coder.ask({ content: "as the owner" }), "owner_only");
    await forbidden(coder.close(asked.conversationId), "owner_only");
    await forbidden(coder.close(asked.conversationId, { by: "coder" }), "owner_only");
    await forbidden(coder.reopen(asked.conversationId), "owner_only");
    await forbidden(coder.status(), "owner_only");
    await forbidden(coder.stop(), "owner_only");
    const err = await refused(coder.reply({ from: "reviewer", conversation: asked.conversationId, content: "x" }));
    expect(err.message).toMatch(/coder's token.*cannot act as reviewer/);
    expect((await owner.auditTrail(asked.conversationId)).entries.length).toBe(before);
    expect((await owner.inbox("reviewer", { limit: 50, offset: 0 })).items.map((m) => m.id)).toContain(asked.event.id);
  });

  it("the owner's token still acts for anyone and keeps the owner's powers", async () => {
    const asked = await owner.ask({ content: "Owner check", to: ["reviewer"] });
    expect((await owner.reply({ from: "reviewer", conversation: asked.conversationId, content: "as reviewer, by the owner" })).event.pubkey).toBe(project.agents.reviewer);
    expect((await owner.markRead(asked.conversationId, "reviewer")).changed).toBe(true);
    expect((await owner.close(asked.conversationId, { reason: "done" })).status).toBe("closed");
    expect((await owner.reopen(asked.conversationId)).status).toBe("open");
    expect((await owner.status()).pid).toBe(daemon.child.pid);
  });

  it("a wrong token is 401 whatever it looks like; an agent token from the raw API is checked the same", async () => {
    const coderToken = readFileSync(tokenFile("coder"), "utf8").trim();
    expect((await raw(ep.url, "GET", "/api/v1/agents/coder/inbox", { token: coderToken })).status).toBe(200);
    const r = await raw(ep.url, "POST", "/api/v1/messages", { token: coderToken, body: { from: "planner", to: "coder", content: "x" } });
    expect([r.status, r.body.error.code]).toEqual([403, "not_this_agent"]);
    const altered = `${coderToken.slice(0, 63)}${coderToken.endsWith("0") ? "1" : "0"}`;
    expect((await raw(ep.url, "GET", "/api/v1/agents/coder/inbox", { token: altered })).status).toBe(401);
  });
});
