import { describe, it, expect } from "vitest";
import { finalizeEvent, verifyEvent } from "nostr-tools/pure";
import {
  buildCompletion, buildReply, buildRoot, buildStatusHeartbeat, checkOutgoingLimits, OutgoingLimitError, utf8ByteLength,
} from "../../src/agent-events/index.js";
import { DomainError } from "../../src/errors.js";
import { decideTrigger } from "../../src/routing.js";
import { isCompletion, parentEventId, rootEventId, scopeOf } from "../../src/tags.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";
import type { TestKey } from "../helpers/events.js";
import { newKey, testProject } from "../helpers/events.js";

const T = 1_700_000_000;
const signAs = (key: TestKey, ev: UnsignedEvent) => finalizeEvent(ev, key.sk) as NostrEvent;

function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const planner = p.agents.planner!;
  const coder = p.agents.coder!;
  const root = p.root(p.owner, "Build the thing", [p.orchestrator.pubkey], [], T);
  return { p, planner, coder, root };
}

describe("agent events", () => {
  it("builds a NIP-22 reply with exactly the TENEX tags, p = addressed recipients", () => {
    const { p, planner, coder, root } = setup();
    const parent = p.reply(planner, root, "plan ready", [coder.pubkey], [], root, T + 1);
    const ev = buildReply({
      root, parent, project: p.coordinate, phase: "execute", content: "on it", recipients: [planner.pubkey],
      session: "sess-1", triggeringEventId: parent.id, netTimeSecs: 12.7, priority: "high", type: "result",
      createdAt: T + 2,
    });
    expect(ev.kind).toBe(1111);
    expect(ev.created_at).toBe(T + 2);
    expect(ev.content).toBe("on it");
    expect(ev.tags).toEqual([
      ["E", root.id, "", p.owner.pubkey],
      ["K", "11"],
      ["P", p.owner.pubkey],
      ["e", parent.id, "", planner.pubkey],
      ["k", "1111"],
      ["a", p.coordinate],
      ["p", planner.pubkey],
      ["phase", "execute"],
      ["claude-session", "sess-1"],
      ["triggering-event-id", parent.id],
      ["net-time", "12"],
      ["priority", "high"],
      ["type", "result"],
    ]);
  });

  it("defaults the parent to the root and omits absent optional tags", () => {
    const { p, root } = setup();
    const ev = buildReply({ root: { id: root.id, kind: root.kind, pubkey: root.pubkey }, project: p.coordinate, phase: "chat", content: "hi", createdAt: T });
    expect(ev.tags).toEqual([
      ["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey],
      ["e", root.id, "", root.pubkey], ["k", "11"], ["a", p.coordinate], ["phase", "chat"],
    ]);
  });

  it("signs a reply that verifies and routes to the agent it p-tags", () => {
    const { p, planner, coder, root } = setup();
    const ev = signAs(coder, buildReply({ root, project: p.coordinate, phase: "plan", content: "planner, review", recipients: [planner.pubkey], createdAt: T + 5 }));
    expect(verifyEvent(ev)).toBe(true);
    expect(rootEventId(ev.tags)).toBe(root.id);
    expect(parentEventId(ev.tags)).toBe(root.id);
    const d = decideTrigger(ev, p.info);
    expect(d.action === "trigger" && d.agent.slug).toBe("planner");
  });

  it("builds a completion: tool=complete, p = the orchestrator only, and it routes to the orchestrator", () => {
    const { p, coder, root } = setup();
    const unsigned = buildCompletion({ root, project: p.coordinate, phase: "execute", content: "done: tests pass", orchestrator: p.orchestrator.pubkey, createdAt: T + 9 });
    expect(unsigned.tags).toEqual([
      ["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey],
      ["e", root.id, "", root.pubkey], ["k", "11"], ["a", p.coordinate],
      ["p", p.orchestrator.pubkey], ["phase", "execute"], ["tool", "complete"],
    ]);
    const ev = signAs(coder, unsigned);
    expect(verifyEvent(ev)).toBe(true);
    expect(isCompletion(ev.tags)).toBe(true);
    const d = decideTrigger(ev, p.info);
    expect(d.action === "trigger" && d.agent.slug).toBe("orchestrator");
  });

  it("builds a kind 11 root with title, recipients, scope, priority, type and expiration", () => {
    const { p, planner, coder } = setup();
    const unsigned = buildRoot({
      project: p.coordinate, title: "  API review  ", content: "Coders: please review", recipients: [coder.pubkey, coder.pubkey],
      scope: { kind: "role", role: "coder" }, priority: "critical", type: "instruction", expiresAt: T + 3600, createdAt: T,
    });
    expect(unsigned.kind).toBe(11);
    expect(unsigned.tags).toEqual([
      ["a", p.coordinate], ["title", "API review"], ["p", coder.pubkey], ["phase", "chat"],
      ["scope", "role", "coder"], ["priority", "critical"], ["type", "instruction"], ["expiration", String(T + 3600)],
    ]);
    const ev = signAs(planner, unsigned);
    expect(verifyEvent(ev)).toBe(true);
    expect(rootEventId(ev.tags)).toBeUndefined();
    expect(scopeOf(ev.tags)).toEqual({ kind: "role", role: "coder" });
    const d = decideTrigger(ev, p.info);
    expect(d.action === "trigger" && d.agent.slug).toBe("coder");
    expect(buildRoot({ project: p.coordinate, title: "all hands", content: "", scope: { kind: "all" }, createdAt: T }).tags)
      .toContainEqual(["scope", "all"]);
  });

  it("refuses a root with an empty title or an expiration not after its creation", () => {
    const { p } = setup();
    expect(() => buildRoot({ project: p.coordinate, title: "  ", content: "x", createdAt: T })).toThrow(/non-empty title/);
    expect(() => buildRoot({ project: p.coordinate, title: "t", content: "x", expiresAt: T, createdAt: T })).toThrow(/not after createdAt/);
  });

  it("refuses to build events with a bad project, reference or recipient", () => {
    const { p, root } = setup();
    const base = { root, phase: "chat" as const, content: "x", createdAt: T };
    expect(() => buildReply({ ...base, project: "test-project" })).toThrow(/31933:<owner-pubkey>:<d>/);
    expect(() => buildReply({ ...base, project: p.coordinate, parent: { id: "abc", kind: 11, pubkey: root.pubkey } })).toThrow(/parent.id/);
    expect(() => buildReply({ ...base, project: p.coordinate, recipients: ["npub1xyz"] })).toThrow(DomainError);
  });

  it("builds a status heartbeat with today's tag set: the project, its people (each once), one agent tag per agent", () => {
    const { p } = setup();
    const agents = p.info.agents.map((a) => ({ pubkey: a.pubkey, slug: a.slug }));
    const user = newKey().pubkey;
    const unsigned = buildStatusHeartbeat({ project: p.coordinate, people: [p.owner.pubkey, user, p.owner.pubkey], agents, createdAt: T });
    expect(unsigned).toEqual({
      kind: 24010, created_at: T, content: "",
      tags: [["a", p.coordinate], ["p", p.owner.pubkey], ["p", user], ...agents.map((a) => ["agent", a.pubkey, a.slug])],
    });
    const ev = signAs(p.orchestrator, unsigned);
    expect(verifyEvent(ev)).toBe(true);
    expect(decideTrigger(ev, p.info)).toEqual({ action: "reject", reason: "not_a_conversation_event" });
  });

  it("a built reply's root is found by its uppercase E tag", () => {
    const { p, coder, root } = setup();
    const mid = p.reply(coder, root, "mid", [], [], root, T + 1);
    const ev = signAs(coder, buildReply({ root, parent: mid, project: p.coordinate, phase: "chat", content: "deep", createdAt: T + 2 }));
    expect(rootEventId(ev.tags)).toBe(root.id);
    expect(parentEventId(ev.tags)).toBe(mid.id);
  });
});

describe("outgoing size limits", () => {
  const limits = { maxContentBytes: 65_536, maxTags: 20, maxTagValueBytes: 1024 };
  const reply = () => {
    const { p, root } = setup();
    return buildReply({ root, project: p.coordinate, phase: "chat", content: "ok", createdAt: T });
  };

  it("lets an event within the limits through", () => {
    expect(() => checkOutgoingLimits(reply(), limits)).not.toThrow();
  });

  it("names maxContentBytes, with sizes in bytes, when the content is too large", () => {
    const ev = { ...reply(), content: "x".repeat(70_123) };
    expect(() => checkOutgoingLimits(ev, limits)).toThrow("content is 70,123 bytes; the limit is 65,536 (limits.maxContentBytes)");
    try {
      checkOutgoingLimits(ev, limits);
    } catch (e) {
      expect(e).toBeInstanceOf(OutgoingLimitError);
      expect(e).toBeInstanceOf(DomainError);
      expect((e as OutgoingLimitError).field).toBe("maxContentBytes");
    }
  });

  it("counts UTF-8 bytes, not characters", () => {
    const ev = { ...reply(), content: "é".repeat(40_000) };
    expect(() => checkOutgoingLimits(ev, limits)).toThrow("content is 80,000 bytes");
    for (const s of ["", "abc", "é", "€", "😀", "a😀é€\ud800x"]) expect(utf8ByteLength(s)).toBe(Buffer.byteLength(s, "utf8"));
  });

  it("names maxTags when there are too many tags", () => {
    const ev = reply();
    const many = { ...ev, tags: [...ev.tags, ...Array.from({ length: 20 }, (_, i) => ["t", `x${i}`])] };
    expect(() => checkOutgoingLimits(many, limits)).toThrow("the event has 27 tags; the limit is 20 (limits.maxTags)");
  });

  it("names maxTagValueBytes and the offending tag", () => {
    const ev = reply();
    const big = { ...ev, tags: [...ev.tags, ["claude-session", "s".repeat(2000)]] };
    expect(() => checkOutgoingLimits(big, limits))
      .toThrow('tag 7 ("claude-session") element 1 is 2,000 bytes; the limit is 1,024 (limits.maxTagValueBytes)');
  });
});
