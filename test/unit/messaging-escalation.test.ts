import { describe, it, expect } from "vitest";
import { decideAddEvent, decideRead, stamp } from "../../src/conversation.js";
import { applyRecords, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation, TurnsState } from "../../src/conversation-state.js";
import {
  decideBackpressure, decideStallEscalation, escalationMessage, isUnread, type FlagDecision,
} from "../../src/messaging/index.js";
import type { NewRecord } from "../../src/records.js";
import { detectRoutingProblems } from "../../src/routing-health.js";
import { decideCompletion, decideStartTurn, decideTimeouts } from "../../src/turns.js";
import { testProject } from "../helpers/events.js";

const T = 1_700_000_000;

/** The caller's side of the contract: apply each decision to the flagged set, count escalations. */
function flagger() {
  const flagged = new Set<string>();
  const escalated: string[] = [];
  const apply = (d: FlagDecision) => {
    for (const k of d.flag) { flagged.add(k); escalated.push(k); }
    for (const k of d.clear) flagged.delete(k);
    return d;
  };
  return { flagged, escalated, apply, state: { flagged } };
}

describe("inbox backpressure", () => {
  it("flags an agent once when its unread depth passes the threshold, as messages keep coming", () => {
    const p = testProject({ agents: ["planner", "coder"] });
    const coder = p.agents.coder!.pubkey;
    const root = p.root(p.owner, "flood", [], [], T);
    const conv: Conversation = emptyConversation(root.id);
    const commit = (recs: NewRecord[]) => applyRecords(conv, stamp(conv, recs));
    commit(decideAddEvent(conv, root, "relay", T * 1000));
    commit(decideRead(conv, coder, conv.lastN, T * 1000));
    const unread = () => conv.events.filter((s) =>
      isUnread({ id: s.ev.id, n: s.n, author: s.ev.pubkey }, coder, conv.views.get(coder)?.readSeq ?? 0, new Set(), T + 100)).length;
    const f = flagger();
    for (let i = 1; i <= 8; i++) {
      commit(decideAddEvent(conv, p.reply(p.agents.planner!, root, `m${i}`, [coder], [], root, T + i), "relay", T * 1000));
      f.apply(decideBackpressure(f.state, [{ agent: coder, unread: unread() }], 5));
    }
    expect(unread()).toBe(8);
    expect(f.escalated).toEqual([coder]);
    expect(f.flagged.has(coder)).toBe(true);
  });

  it("does not flag at the threshold, only past it", () => {
    const f = flagger();
    expect(f.apply(decideBackpressure(f.state, [{ agent: "a", unread: 5 }], 5))).toEqual({ flag: [], clear: [] });
    expect(f.apply(decideBackpressure(f.state, [{ agent: "a", unread: 6 }], 5))).toEqual({ flag: ["a"], clear: [] });
  });

  it("clears an agent when it drops back, and flags it again on a relapse", () => {
    const f = flagger();
    for (const unread of [9, 12, 4, 3, 7, 8]) f.apply(decideBackpressure(f.state, [{ agent: "a", unread }], 5));
    expect(f.escalated).toEqual(["a", "a"]);
    expect(f.apply(decideBackpressure(f.state, [{ agent: "a", unread: 0 }], 5))).toEqual({ flag: [], clear: ["a"] });
  });

  it("with a lower clear level, an agent hovering at the threshold escalates once", () => {
    const f = flagger();
    for (const unread of [6, 5, 6, 5, 6]) f.apply(decideBackpressure(f.state, [{ agent: "a", unread }], 5, 2));
    expect(f.escalated).toEqual(["a"]);
  });

  it("decides each agent on its own and leaves unobserved agents flagged", () => {
    const f = flagger();
    f.apply(decideBackpressure(f.state, [{ agent: "a", unread: 10 }, { agent: "b", unread: 10 }], 5));
    const d = f.apply(decideBackpressure(f.state, [{ agent: "a", unread: 1 }, { agent: "c", unread: 99 }], 5));
    expect(d).toEqual({ flag: ["c"], clear: ["a"] });
    expect([...f.flagged].sort()).toEqual(["b", "c"]);
  });

  it("writes an owner message naming the agent, the depth and the threshold", () => {
    const text = escalationMessage({ kind: "backpressure", agent: { slug: "coder", pubkey: "ab".repeat(32) }, unread: 153, threshold: 100 });
    expect(text).toContain("coder has 153 unread messages (threshold 100)");
  });
});

describe("stall escalation", () => {
  const opts = { repeatThreshold: 3, stallThreshold: 2 };

  function turns(convId: string) {
    const conv = emptyConversation(convId);
    const state: TurnsState = conv.turns;
    let clock = T * 1000;
    const run = (recs: NewRecord[]) => applyRecords(conv, stamp(conv, recs));
    const timedOutTurn = (id: string, agent: string) => {
      run(decideStartTurn(state, { turnId: id, phase: "execute", agents: [agent], reason: "go", timeoutMs: 1000 }, clock));
      clock += 2000;
      run(decideTimeouts(state, clock));
    };
    const completedTurn = (id: string, agent: string) => {
      run(decideStartTurn(state, { turnId: id, phase: "verification", agents: [agent], reason: "check" }, clock));
      run(decideCompletion(state, { eventId: `${id}-done`.padEnd(64, "0"), agent, message: "ok" }, clock));
    };
    return { state, timedOutTurn, completedTurn };
  }

  it("flags a conversation once while its turns make no progress, and clears it when one does", () => {
    const p = testProject({ agents: ["coder"] });
    const coder = p.agents.coder!.pubkey;
    const conv = p.root(p.owner, "stuck", [], [], T).id;
    const t = turns(conv);
    const f = flagger();
    for (let i = 1; i <= 4; i++) {
      t.timedOutTurn(`t${i}`, coder);
      f.apply(decideStallEscalation(f.state, conv, detectRoutingProblems(t.state, opts)));
    }
    expect(f.escalated).toEqual([conv]);
    t.completedTurn("t5", coder);
    expect(f.apply(decideStallEscalation(f.state, conv, detectRoutingProblems(t.state, opts)))).toEqual({ flag: [], clear: [conv] });
    expect(f.flagged.size).toBe(0);
  });

  it("writes an owner message naming the conversation and what is wrong", () => {
    const p = testProject({ agents: ["coder"] });
    const coder = p.agents.coder!.pubkey;
    const t = turns(p.root(p.owner, "stuck", [], [], T).id);
    for (let i = 1; i <= 3; i++) t.timedOutTurn(`t${i}`, coder);
    const problems = detectRoutingProblems(t.state, opts);
    const text = escalationMessage({
      kind: "stall", conversation: { id: "f".repeat(64), alias: "CONV-0012", title: "Build it" }, problems,
      agents: [{ slug: "coder", pubkey: coder }],
    });
    expect(text).toContain('Conversation CONV-0012 "Build it" is not making progress');
    expect(text).toContain("3 turns in a row made no progress");
    expect(text).toContain("routed execute → coder 3 times in a row");
  });
});
