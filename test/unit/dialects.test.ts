// Both client dialects read into the same conversations (src/dialect.ts, src/conversation-of.ts,
// src/edge/placement.ts): kind 1 threads as today's TENEX encoder writes them, the positional
// form older clients send, and the rules that keep a stranger's note cheap.

import { describe, expect, it } from "vitest";
import { conversationIdOf, isRootEvent } from "../../src/conversation-of.js";
import { noteConversationId, replyDialect } from "../../src/dialect.js";
import { placeEvent, placedBeforeSignature } from "../../src/edge/placement.js";
import { DEFAULT_LIMITS, validateInbound } from "../../src/edge/validate-inbound.js";
import { KNOWN_KINDS } from "../../src/kinds.js";
import { decideTrigger } from "../../src/routing.js";
import { isCompletion } from "../../src/tags.js";
import type { AgentOutput } from "../../src/agent-output.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { DialectSetting } from "../../src/dialect.js";
import { planOutput } from "../../src/output-plan.js";
import type { NostrEvent } from "../../src/types.js";
import { conversationOf } from "../helpers/conversation.js";
import { newKey, sign, testProject } from "../helpers/events.js";
import { noteCompletion, noteReply, noteRoot, positionalReply } from "../helpers/tenex-client.js";

const p = testProject();
const planner = p.agents.planner!;
const stranger = newKey();
const NOW = Math.floor(Date.now() / 1000);
const edge = (ev: unknown) => validateInbound(ev, DEFAULT_LIMITS, KNOWN_KINDS, NOW);

describe("kind 1 threads", () => {
  const root = noteRoot(p.owner, p.coordinate, "Build the health endpoint", [planner.pubkey]);
  const answer = noteReply(planner, p.coordinate, root.id, root.id, "on it");
  const deeper = noteReply(p.owner, p.coordinate, root.id, answer.id, "thanks");

  it("a root is its own conversation; marked replies name it; so does the positional form", () => {
    expect(conversationIdOf(root)).toBe(root.id);
    expect(isRootEvent(root)).toBe(true);
    expect(conversationIdOf(answer)).toBe(root.id);
    expect(conversationIdOf(deeper)).toBe(root.id);
    expect(isRootEvent(deeper)).toBe(false);
    expect(conversationIdOf(positionalReply(p.owner, root.id, answer.id, "old client"))).toBe(root.id);
    expect(conversationIdOf(positionalReply(p.owner, root.id, root.id, "old client"))).toBe(root.id);
  });

  it("reply and mention marks never name the root (as TENEX's reader has it)", () => {
    const onlyReply = sign(p.owner, 1, "x", [["e", answer.id, "", "reply"], ["a", p.coordinate]]);
    expect(noteConversationId(onlyReply)).toBe(onlyReply.id);
    const mentionFirst = sign(p.owner, 1, "x", [["e", answer.id, "", "mention"], ["e", root.id, "", "root"]]);
    expect(noteConversationId(mentionFirst)).toBe(root.id);
  });

  it("a root addressing no agent goes to the orchestrator; a reply from a user addressing none too", () => {
    expect(decideTrigger(noteRoot(p.owner, p.coordinate, "hi"), p.info)).toMatchObject({ action: "trigger", agent: { isOrchestrator: true } });
    expect(decideTrigger(root, p.info)).toMatchObject({ action: "trigger", agent: { slug: "planner" } });
    // An agent's kind 1 reply that addresses nobody is recorded, not run (no chatter loops).
    expect(decideTrigger(answer, p.info)).toMatchObject({ action: "record" });
  });

  it("today's completion (`status completed`) is a completion; the edge allows that value on kind 1 only", () => {
    const done = noteCompletion(planner, p.coordinate, root.id, root.id, "done", p.orchestrator.pubkey);
    expect(isCompletion(done.tags)).toBe(true);
    expect(edge(done).ok).toBe(true);
    const nip22 = p.reply(planner, p.root(p.owner, "x"), "done", [], [["status", "completed"]]);
    expect(edge(nip22)).toMatchObject({ ok: false, reason: "bad_tag_shape" });
  });

  it("answers in the trigger's dialect unless the project chose one", () => {
    expect(replyDialect("auto", root)).toBe("kind1");
    expect(replyDialect(undefined, p.root(p.owner, "x"))).toBe("nip22");
    expect(replyDialect("nip22", root)).toBe("nip22");
    expect(replyDialect("kind1", p.root(p.owner, "x"))).toBe("kind1");
  });
});

describe("placing a kind 1 before its signature is checked", () => {
  const held = new Set<string>();
  const holds = (id: string) => held.has(id);

  it("is done for kind 1 only", () => {
    expect(placedBeforeSignature(1)).toBe(true);
    expect(placedBeforeSignature(1111)).toBe(false);
    expect(placedBeforeSignature(11)).toBe(false);
  });

  it("a stranger's note (no project tag, no conversation held) is unplaced; another project's is not ours", () => {
    const note = sign(stranger, 1, "gm");
    expect(placeEvent(note, p.coordinate, holds)).toEqual({ is: "unplaced", conversationId: note.id, root: true });
    const other = sign(stranger, 1, "gm", [["a", `31933:${stranger.pubkey}:other`]]);
    expect(placeEvent(other, p.coordinate, holds)).toEqual({ is: "other_project" });
    const replyToStranger = sign(p.owner, 1, "nice", [["e", note.id, "", "root"]]);
    expect(placeEvent(replyToStranger, p.coordinate, holds)).toMatchObject({ is: "unplaced", root: false });
  });

  it("a reply without the project tag is ours once its conversation is held", () => {
    const root = noteRoot(p.owner, p.coordinate, "hello");
    const reply = positionalReply(p.owner, root.id, root.id, "more");
    expect(placeEvent(root, p.coordinate, holds)).toEqual({ is: "ours", conversationId: root.id });
    expect(placeEvent(reply, p.coordinate, holds).is).toBe("unplaced");
    held.add(root.id);
    expect(placeEvent(reply, p.coordinate, holds)).toEqual({ is: "ours", conversationId: root.id });
  });
});

describe("an agent's answer, in the trigger's dialect", () => {
  const orchestrator = p.info.agents.find((a) => a.isOrchestrator)!;
  const plannerInfo = p.info.agents.find((a) => a.slug === "planner")!;
  const plan = (trigger: NostrEvent, conv: Conversation, out: AgentOutput, dialect?: DialectSetting) =>
    planOutput(out, {
      conv, agent: plannerInfo, trigger, agents: p.info.agents, orchestrator, turnTimeoutMs: 1000, netTimeSecs: 2,
      now: NOW * 1000, turnId: "t1", ...(dialect ? { dialect } : {}),
    }).event!;
  const tagsNamed = (ev: { tags: string[][] }, name: string) => ev.tags.filter((t) => t[0] === name);

  it("a kind 1 trigger gets a kind 1 reply with NIP-10 marks, the project and the addressed p", () => {
    const root = noteRoot(p.owner, p.coordinate, "Build it", [planner.pubkey]);
    const answer = plan(root, conversationOf(root.id, [root], p.coordinate), { reply: "outline", recipients: ["coder"] });
    expect(answer.kind).toBe(1);
    expect(tagsNamed(answer, "e")).toEqual([["e", root.id, "", "root"], ["e", root.id, "", "reply"]]);
    expect(tagsNamed(answer, "a")).toEqual([["a", p.coordinate]]);
    expect(tagsNamed(answer, "p")).toEqual([["p", p.agents.coder!.pubkey]]);
    expect(tagsNamed(answer, "E")).toEqual([]);
  });

  it("a kind 1 completion is marked as today's TENEX marks it, addressed to the orchestrator, and read back as one", () => {
    const root = noteRoot(p.owner, p.coordinate, "Build it", [planner.pubkey]);
    const reply = noteReply(p.owner, p.coordinate, root.id, root.id, "and tests", [planner.pubkey]);
    const done = plan(reply, conversationOf(root.id, [root, reply], p.coordinate), { reply: "done", complete: true });
    expect(done.kind).toBe(1);
    expect(tagsNamed(done, "e")).toEqual([["e", root.id, "", "root"], ["e", reply.id, "", "reply"]]);
    expect(tagsNamed(done, "status")).toEqual([["status", "completed"]]);
    expect(tagsNamed(done, "tool")).toEqual([]);
    expect(tagsNamed(done, "p")).toEqual([["p", orchestrator.pubkey]]);
    expect(isCompletion(done.tags)).toBe(true);
  });

  it("a kind 11 trigger keeps NIP-22; the project's setting wins over the trigger's", () => {
    const root = p.root(p.owner, "Build it", [planner.pubkey]);
    const conv = conversationOf(root.id, [root], p.coordinate);
    expect(plan(root, conv, { reply: "x" }).kind).toBe(1111);
    expect(plan(root, conv, { reply: "x" }, "kind1").kind).toBe(1);
    const note = noteRoot(p.owner, p.coordinate, "Build it", [planner.pubkey]);
    expect(plan(note, conversationOf(note.id, [note], p.coordinate), { reply: "x" }, "nip22")).toMatchObject({ kind: 1111, tags: expect.arrayContaining([["K", "1"]]) });
  });
});
