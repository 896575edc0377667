import { describe, it, expect } from "vitest";
import { decideAddEvent, decideClose, stamp } from "../../src/conversation.js";
import { applyRecords, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { DomainError } from "../../src/errors.js";
import { decideDirect, directKey, type DirectEntry } from "../../src/messaging/index.js";
import type { NewRecord } from "../../src/records.js";
import type { TestKey } from "../helpers/events.js";
import { testProject } from "../helpers/events.js";

const T = 1_700_000_000;

/** A tiny stand-in for the index: direct conversations by pair, built from real conversations. */
function setup() {
  const p = testProject({ agents: ["planner", "coder", "tester"] });
  const convs = new Map<string, Conversation>();
  const registry = new Map<string, DirectEntry>();
  const commit = (conv: Conversation, recs: NewRecord[]) => applyRecords(conv, stamp(conv, recs));
  let clock = T;

  /** Sends a direct message the way the daemon would: reuse or create, then record the event. */
  function send(from: TestKey, to: TestKey, text: string) {
    const d = decideDirect(registry, from.pubkey, to.pubkey);
    clock++;
    if (d.kind === "create") {
      const root = p.root(from, text, [to.pubkey], [], clock);
      const conv = emptyConversation(root.id);
      commit(conv, decideAddEvent(conv, root, "local", clock * 1000));
      convs.set(root.id, conv);
      registry.set(directKey(from.pubkey, to.pubkey), { conversationId: root.id, status: conv.status });
      return { decision: d, conv };
    }
    const conv = convs.get(d.conversationId)!;
    const rootEv = conv.eventsById.get(conv.id)!.ev;
    commit(conv, decideAddEvent(conv, p.reply(from, rootEv, text, [to.pubkey], [], rootEv, clock), "local", clock * 1000));
    return { decision: d, conv };
  }

  function close(conv: Conversation, by: TestKey, a: TestKey, b: TestKey) {
    commit(conv, decideClose(conv, { by: by.pubkey, reason: "done" }, clock * 1000));
    registry.set(directKey(a.pubkey, b.pubkey), { conversationId: conv.id, status: conv.status });
  }

  return { p, send, close, registry, planner: p.agents.planner!, coder: p.agents.coder!, tester: p.agents.tester! };
}

describe("direct conversations", () => {
  it("keys a pair the same whichever side sends", () => {
    const { planner, coder } = setup();
    expect(directKey(planner.pubkey, coder.pubkey)).toBe(directKey(coder.pubkey, planner.pubkey));
    expect(directKey(planner.pubkey, coder.pubkey)).not.toBe(directKey(planner.pubkey, setup().coder.pubkey));
  });

  it("creates a conversation on the first message", () => {
    const s = setup();
    const first = s.send(s.planner, s.coder, "can you take the parser?");
    expect(first.decision).toEqual({ kind: "create" });
    expect(first.conv.events).toHaveLength(1);
    expect(s.registry.size).toBe(1);
  });

  it("reuses it for later messages in the same direction", () => {
    const s = setup();
    const first = s.send(s.planner, s.coder, "one");
    const second = s.send(s.planner, s.coder, "two");
    expect(second.decision).toEqual({ kind: "reuse", conversationId: first.conv.id });
    expect(first.conv.events.map((e) => e.ev.content)).toEqual(["one", "two"]);
  });

  it("reuses it when the other agent answers", () => {
    const s = setup();
    const first = s.send(s.planner, s.coder, "parser?");
    const answer = s.send(s.coder, s.planner, "yes, on it");
    expect(answer.decision).toEqual({ kind: "reuse", conversationId: first.conv.id });
    expect(first.conv.participants).toEqual(new Set([s.planner.pubkey, s.coder.pubkey]));
  });

  it("keeps separate pairs separate", () => {
    const s = setup();
    const a = s.send(s.planner, s.coder, "to coder");
    const b = s.send(s.planner, s.tester, "to tester");
    expect(b.decision).toEqual({ kind: "create" });
    expect(b.conv.id).not.toBe(a.conv.id);
  });

  it("starts a new conversation after the pair's conversation was closed", () => {
    const s = setup();
    const first = s.send(s.planner, s.coder, "parser?");
    s.close(first.conv, s.coder, s.planner, s.coder);
    expect(first.conv.status).toBe("closed");
    const next = s.send(s.coder, s.planner, "new topic");
    expect(next.decision).toEqual({ kind: "create" });
    expect(next.conv.id).not.toBe(first.conv.id);
    expect(s.send(s.planner, s.coder, "ok").decision).toEqual({ kind: "reuse", conversationId: next.conv.id });
  });

  it("refuses a message to oneself", () => {
    const s = setup();
    expect(() => s.send(s.planner, s.planner, "hello me")).toThrow("cannot send a message to yourself");
    try {
      decideDirect(s.registry, s.coder.pubkey, s.coder.pubkey);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe("self_message");
    }
    expect(s.registry.size).toBe(0);
  });
});
