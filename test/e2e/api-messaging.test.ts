// The messaging model, rule by rule, through the local API of a running daemon (the pure rules
// have their unit tests in test/unit/messaging-*.test.ts; here they are checked end to end:
// signed events, the log, the index, the API).

import { describe, expect, it } from "vitest";
import type { TenexClient } from "../../daemon/front-desk/client/client.js";
import { readLog, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { refused, useMailboxDaemon } from "./api-fixture.js";

let project: TestProject;
let daemon: RunningDaemon;
let api: TenexClient;
useMailboxDaemon("tenexd-msg-", { maxContentBytes: 1000 }, (d) => ({ project, daemon, api } = d));

const tag = (ev: { tags: string[][] }, name: string) => ev.tags.find((t) => t[0] === name);
const page = { limit: 100, offset: 0 };
const inboxIds = async (agent: string) => (await api.inbox(agent, page)).items.map((m) => m.id);

describe("direct (1-on-1) conversations", () => {
  it("the first message between two agents starts their conversation, signed by the sender", async () => {
    const r = await api.sendDirect({ from: "planner", to: "reviewer", content: "first" });
    expect(r.created).toBe(true);
    expect(r.conversationId).toBe(r.event.id);
    expect(r.event.kind).toBe(11);
    expect(r.event.pubkey).toBe(project.agents.planner);
    expect(tag(r.event, "p")).toEqual(["p", project.agents.reviewer]);
    expect(tag(r.event, "a")).toEqual(["a", project.coordinate]);
    // Durable in the log before the API answered.
    expect(readLog(project.tenexDir, r.conversationId).find((x) => x.t === "event")?.ev.id).toBe(r.event.id);
  });

  it("later messages, in either direction, go to the same conversation as threaded NIP-22 replies", async () => {
    const first = await api.sendDirect({ from: "coder", to: "orchestrator", content: "one" });
    const back = await api.sendDirect({ from: "orchestrator", to: "coder", content: "two" });
    const again = await api.sendDirect({ from: "coder", to: "orchestrator", content: "three" });
    expect([back.created, again.created]).toEqual([false, false]);
    expect(back.conversationId).toBe(first.conversationId);
    expect(again.conversationId).toBe(first.conversationId);
    expect(back.event.kind).toBe(1111);
    expect(tag(back.event, "E")?.[1]).toBe(first.conversationId);
    expect(tag(back.event, "p")).toEqual(["p", project.agents.coder]);
  });

  it("a message after the conversation was closed starts a new one", async () => {
    const first = await api.sendDirect({ from: "coder", to: "reviewer", content: "before closing" });
    const closed = await api.close(first.conversationAlias!, { by: "coder", reason: "done" });
    expect(closed).toEqual(expect.objectContaining({ changed: true, status: "closed" }));
    const next = await api.sendDirect({ from: "reviewer", to: "coder", content: "after closing" });
    expect(next.created).toBe(true);
    expect(next.conversationId).not.toBe(first.conversationId);
  });

  it("sending a message to oneself is refused", async () => {
    const err = await refused(api.sendDirect({ from: "coder", to: "coder", content: "hello me" }));
    expect([err.status, err.code]).toEqual([400, "self_message"]);
    expect(err.message).toBe("cannot send a message to yourself");
    const own = await api.sendDirect({ from: "coder", to: "planner", content: "for the record" });
    const self = await refused(api.reply({ from: "coder", conversation: own.conversationId, content: "note to self", recipients: ["coder"] }));
    expect([self.status, self.code]).toEqual([400, "self_message"]);
  });
});

describe("discussions", () => {
  it("a discussion scoped to a role reaches the agents of that role, replies included, and no one else", async () => {
    const d = await api.discuss({ from: "orchestrator", scope: { role: "coder" }, title: "Coding standards", content: "tabs or spaces?" });
    expect(tag(d.event, "scope")).toEqual(["scope", "role", "coder"]);
    expect(await inboxIds("coder")).toContain(d.event.id);
    expect(await inboxIds("reviewer")).not.toContain(d.event.id);
    // A reply that addresses nobody in particular still reaches the discussion's scope.
    const r = await api.reply({ from: "orchestrator", conversation: d.conversationId, content: "decide by Friday", recipients: [] });
    expect(await inboxIds("coder")).toContain(r.event.id);
    expect(await inboxIds("planner")).not.toContain(r.event.id);
  });

  it("a discussion for all reaches every agent but its author; an unknown role is refused", async () => {
    const d = await api.discuss({ from: "planner", scope: "all", content: "Release on Monday\nDetails follow." });
    expect(tag(d.event, "scope")).toEqual(["scope", "all"]);
    expect(tag(d.event, "title")).toEqual(["title", "Release on Monday"]);
    for (const agent of ["orchestrator", "coder", "reviewer"]) expect(await inboxIds(agent), agent).toContain(d.event.id);
    expect(await inboxIds("planner")).not.toContain(d.event.id);
    const err = await refused(api.discuss({ from: "planner", scope: { role: "astronaut" }, content: "hi" }));
    expect(err.message).toContain('no agent has the role "astronaut"');
  });
});

describe("threads, priorities, aliases", () => {
  it("a reply to a message is threaded under it and, by default, addresses that message's author", async () => {
    const root = await api.discuss({ from: "orchestrator", scope: "all", title: "Thread test", content: "root" });
    const a = await api.reply({ from: "coder", conversation: root.conversationId, content: "reply to root" });
    const b = await api.reply({ from: "reviewer", conversation: root.conversationId, parent: a.alias!, content: "reply to coder" });
    expect(tag(b.event, "e")?.[1]).toBe(a.event.id);
    expect(tag(b.event, "p")).toEqual(["p", project.agents.coder]);
    const d = await api.conversation(root.conversationId);
    expect(d.thread.map((t) => [t.id, t.depth])).toEqual([[root.event.id, 0], [a.event.id, 1], [b.event.id, 2]]);
  });

  it("the inbox lists the most urgent first, then the oldest first", async () => {
    const low = await api.sendDirect({ from: "orchestrator", to: "planner", content: "low", priority: "low" });
    const none = await api.sendDirect({ from: "orchestrator", to: "planner", content: "none" });
    const critical = await api.sendDirect({ from: "orchestrator", to: "planner", content: "critical", priority: "critical" });
    const high = await api.sendDirect({ from: "orchestrator", to: "planner", content: "high", priority: "high" });
    const ids = (await inboxIds("planner")).filter((id) => [low, none, critical, high].some((r) => r.event.id === id));
    expect(ids).toEqual([critical, high, none, low].map((r) => r.event.id));
  });

  it("aliases name conversations and messages (the letter shows the priority) and resolve to their ids", async () => {
    const r = await api.sendDirect({ from: "reviewer", to: "orchestrator", content: "aliased", priority: "high" });
    expect(r.conversationAlias).toMatch(/^CONV-\d{4,}$/);
    expect(r.alias).toMatch(/^MSG-H-\d{4,}$/);
    expect((await api.conversation(r.conversationAlias!)).conversation.id).toBe(r.conversationId);
    expect((await api.conversation(r.conversationAlias!.toLowerCase())).conversation.id).toBe(r.conversationId);
    expect((await api.message(r.alias!)).id).toBe(r.event.id);
    // The letter is not part of the identity; a hex prefix works too.
    expect((await api.message(r.alias!.replace("-H-", "-L-"))).id).toBe(r.event.id);
    expect((await api.message(r.event.id.slice(0, 10))).id).toBe(r.event.id);
  });
});

describe("read tracking", () => {
  it("a read mark clears what came before it, an ack clears one message, and viewers are known since the last message", async () => {
    const one = await api.discuss({ from: "planner", scope: { role: "orchestrator" }, title: "Reading", content: "r1" });
    const two = await api.reply({ from: "planner", conversation: one.conversationId, content: "r2", recipients: ["orchestrator"] });
    expect(await inboxIds("orchestrator")).toEqual(expect.arrayContaining([one.event.id, two.event.id]));

    const acked = await api.ack(two.alias!, "orchestrator");
    expect(acked.changed).toBe(true);
    expect((await api.ack(two.alias!, "orchestrator")).changed).toBe(false);
    expect(await inboxIds("orchestrator")).not.toContain(two.event.id);
    expect(await inboxIds("orchestrator")).toContain(one.event.id);

    // Its author has seen it up to its own message (docs/agent-protocol.md: an agent's own event).
    expect((await api.conversation(one.conversationId)).viewedBy).toEqual(["planner"]);
    expect((await api.markRead(one.conversationId, "orchestrator")).changed).toBe(true);
    expect(await inboxIds("orchestrator")).not.toContain(one.event.id);
    expect(readLog(project.tenexDir, one.conversationId).filter((x) => x.t === "read" || x.t === "ack").map((x) => x.t)).toEqual(["ack", "read"]);
    expect((await api.conversation(one.conversationId)).viewedBy).toEqual(["orchestrator", "planner"]);

    // A new message: nobody but its author has viewed the conversation since, until someone does.
    await api.reply({ from: "planner", conversation: one.conversationId, content: "r3", recipients: ["orchestrator"] });
    expect((await api.conversation(one.conversationId)).viewedBy).toEqual(["planner"]);
    expect((await api.markViewed(one.conversationId, "coder")).changed).toBe(true);
    expect((await api.conversation(one.conversationId)).viewedBy).toEqual(["coder", "planner"]);
    // Viewing moves the cursor only: the orchestrator's new message is still unread.
    expect((await api.inbox("orchestrator", page)).items.map((m) => m.preview)).toContain("r3");
  });

  it("message types are filterable, in the inbox and across conversations", async () => {
    const d = await api.sendDirect({ from: "coder", to: "planner", content: "we go with SQLite", type: "decision" });
    await api.sendDirect({ from: "coder", to: "planner", content: "fyi", type: "advisory" });
    const inbox = await api.inbox("planner", { ...page, type: "decision" });
    expect(inbox.items.map((m) => m.id)).toEqual([d.event.id]);
    expect(inbox.items[0]!.type).toBe("decision");
    const all = await api.messages({ type: "advisory", ...page });
    expect(all.items.map((m) => m.preview)).toEqual(["fyi"]);
  });

  it("expired messages are hidden unless asked for", async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const r = await api.sendDirect({ from: "reviewer", to: "planner", content: "short-lived", expiresAt });
    expect(tag(r.event, "expiration")).toEqual(["expiration", String(expiresAt)]);
    expect(await inboxIds("planner")).toContain(r.event.id);
    await new Promise((done) => setTimeout(done, (expiresAt + 1) * 1000 - Date.now()));
    expect(await inboxIds("planner")).not.toContain(r.event.id);
    expect((await api.inbox("planner", { ...page, includeExpired: true })).items.map((m) => m.id)).toContain(r.event.id);
    expect((await api.messages({ author: "reviewer", ...page })).items.map((m) => m.id)).not.toContain(r.event.id);
    expect((await api.conversations({ q: "short-lived", ...page })).total).toBe(0);
    expect((await api.conversations({ q: "short-lived", includeExpired: true, ...page })).total).toBe(1);
  });
});

describe("limits, lifecycle, mailbox agents", () => {
  it("a message over the size limits is refused with 413 and the limit named; nothing is published", async () => {
    const before = (await api.stats()).messages.total;
    const err = await refused(api.sendDirect({ from: "coder", to: "reviewer", content: "x".repeat(1001) }));
    expect([err.status, err.code]).toEqual([413, "too_large"]);
    expect(err.message).toBe("content is 1,001 bytes; the limit is 1,000 (limits.maxContentBytes)");
    expect((await api.stats()).messages.total).toBe(before);
  });

  it("a closed conversation refuses replies (409) until it is reopened", async () => {
    const d = await api.discuss({ from: "orchestrator", scope: "all", title: "Lifecycle", content: "open" });
    await api.close(d.conversationId);
    const err = await refused(api.reply({ from: "coder", conversation: d.conversationId, content: "too late" }));
    expect([err.status, err.code]).toEqual([409, "conflict"]);
    expect(err.message).toContain("is closed: reopen it first");
    expect((await api.close(d.conversationId)).changed).toBe(false);
    expect((await api.reopen(d.conversationId, { reason: "more to say" })).status).toBe("open");
    expect((await api.reply({ from: "coder", conversation: d.conversationId, content: "now then" })).created).toBe(false);
    const trail = await api.auditTrail(d.conversationId);
    expect(trail.entries.filter((e) => e.kind === "status").map((e) => e.data)).toEqual([
      expect.objectContaining({ status: "closed", by: "director" }),
      expect.objectContaining({ status: "open", reason: "more to say" }),
    ]);
  });

  it("a mailbox agent pulls its context and posts an output, acted on as a command agent's would be", async () => {
    const ask = await api.discuss({ from: "coder", scope: { role: "orchestrator" }, content: "please plan the cache", title: "Cache" });
    const input = await api.context("orchestrator", ask.conversationId);
    expect(input.trigger.id).toBe(ask.event.id);
    expect(input.agent.orchestrator).toBe(true);
    expect(input.routing).toEqual({ user_request: "please plan the cache", routing_history: [], current_routing: null });

    const bad = await refused(api.output("orchestrator", { conversation: ask.conversationId, output: { route: { agents: ["ghost"], phase: "plan", reason: "x" } } }));
    expect([bad.status, bad.code]).toEqual([400, "bad_output"]);
    expect(bad.message).toContain('unknown agent slug "ghost"');

    const done = await api.output("orchestrator", {
      conversation: ask.conversationAlias!, output: { route: { agents: ["planner"], phase: "plan", reason: "needs a plan" } },
    });
    expect(done.refused).toBeNull();
    expect(tag(done.published!.event, "p")).toEqual(["p", project.agents.planner]);
    expect(tag(done.published!.event, "phase")).toEqual(["phase", "plan"]);
    const routing = await api.routing(ask.conversationId);
    expect(routing.phase).toBe("plan");
    expect(routing.routing.current_routing).toEqual(expect.objectContaining({ turn: 1, phase: "plan", agents: ["planner"], status: "open" }));
    expect((await api.conversation(ask.conversationId)).turns[0]).toEqual(expect.objectContaining({ waitingFor: ["planner"] }));
    // The planner's context now ends with the orchestrator's routing message.
    const planner = await api.context("planner", ask.conversationId);
    expect(planner.trigger.id).toBe(done.published!.event.id);
  });
});
