import { describe, it, expect } from "vitest";
import { decideAddEvent, stamp } from "../../src/conversation.js";
import { applyRecords, emptyConversation } from "../../src/conversation-reducer.js";
import { decideHandoff, handoffMessage } from "../../src/messaging/index.js";
import { decidePhaseChange } from "../../src/phases.js";
import type { NewRecord } from "../../src/records.js";
import { decideCompletion, decideStartTurn } from "../../src/turns.js";
import { testProject } from "../helpers/events.js";

const T = 1_700_000_000;

/** A real conversation in execute, with three orchestrator turns, the third open. */
function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const coder = p.agents.coder!;
  const root = p.root(p.owner, "Build it", [], [], T);
  const conv = emptyConversation(root.id);
  const commit = (recs: NewRecord[]) => applyRecords(conv, stamp(conv, recs));
  const now = T * 1000;
  commit(decideAddEvent(conv, root, "relay", now));
  for (const to of ["plan", "execute"] as const) {
    commit([decidePhaseChange(conv.phase, { to, by: p.orchestrator.pubkey, message: `to ${to}`, reason: "routing" }, now)]);
  }
  commit(decideStartTurn(conv.turns, { turnId: "t1", phase: "plan", agents: [p.agents.planner!.pubkey], reason: "plan" }, now));
  commit(decideStartTurn(conv.turns, { turnId: "t2", phase: "execute", agents: [coder.pubkey], reason: "build" }, now));
  commit(decideStartTurn(conv.turns, { turnId: "t3", phase: "execute", agents: [coder.pubkey], reason: "fix" }, now));
  return { p, coder, conv, commit, now };
}

describe("phase handoff", () => {
  it("formats the handoff message with the turn number", () => {
    expect(handoffMessage({ from: "execute", to: "verification", turn: 3, summary: " tests written, 2 failing " }))
      .toBe("Phase handoff execute → verification (turn 3): tests written, 2 failing");
    expect(handoffMessage({ from: "chat", to: "plan", summary: "" })).toBe("Phase handoff chat → plan");
  });

  it("carries the open turn's number into the message and the phase record", () => {
    const s = setup();
    const d = decideHandoff(s.conv, { to: "verification", by: s.coder.pubkey, summary: "feature done" }, s.now);
    expect(d.turn).toBe(3);
    expect(d.message).toBe("Phase handoff execute → verification (turn 3): feature done");
    expect(d.record).toMatchObject({ t: "phase", from: "execute", to: "verification", turn: 3, message: d.message, by: s.coder.pubkey });
    s.commit([d.record]);
    expect(s.conv.phase.phase).toBe("verification");
    expect(s.conv.phase.transitions.at(-1)?.message).toBe(d.message);
  });

  it("has no turn number when no turn is open", () => {
    const s = setup();
    s.commit(decideCompletion(s.conv.turns, { eventId: "c".repeat(64), agent: s.coder.pubkey, message: "done" }, s.now));
    expect(s.conv.turns.turns.at(-1)?.status).toBe("completed");
    const d = decideHandoff(s.conv, { to: "verification", by: s.coder.pubkey, summary: "all done" }, s.now);
    expect(d.turn).toBeUndefined();
    expect(d.message).toBe("Phase handoff execute → verification: all done");
    expect(d.record.t === "phase" && d.record.turn).toBeUndefined();
  });

  it("records a same-phase handoff between agents", () => {
    const s = setup();
    const d = decideHandoff(s.conv, { to: "execute", by: s.coder.pubkey, summary: "planner, your turn", eventId: "e".repeat(64) }, s.now);
    expect(d.record).toMatchObject({ t: "phase", from: "execute", to: "execute", eventId: "e".repeat(64) });
  });

  it("refuses an illegal handoff with its reason, leaving the phase as it was", () => {
    const s = setup();
    const d = decideHandoff(s.conv, { to: "chores", by: s.coder.pubkey, summary: "skip verification" }, s.now);
    expect(d.record.t).toBe("phase_refused");
    expect(d.record.reason).toContain("execute→chores is not allowed");
    s.commit([d.record]);
    expect(s.conv.phase.phase).toBe("execute");
    expect(s.conv.phase.refused.at(-1)?.message).toBe("Phase handoff execute → chores (turn 3): skip verification");
  });
});
