import { describe, it, expect } from "vitest";
import {
  applyTurnRecord, currentTurn, decideCancel, decideCompletion, decideStartTurn, decideTimeouts,
  initialTurnsState, type TurnDecision,
} from "../../src/turns.js";
import { buildRoutingContext } from "../../src/routing-context.js";
import { detectRoutingProblems } from "../../src/routing-health.js";
import { initialPhaseState } from "../../src/phases.js";
import { initialExecState } from "../../src/execution-time.js";
import { emptyOrder } from "../../src/event-order.js";
import type { Conversation, TurnsState } from "../../src/conversation-state.js";
import type { CompletionRecord, TurnEndRecord, TurnStartRecord } from "../../src/records.js";
import type { NostrEvent, Phase } from "../../src/types.js";
import { testProject, type TestKey } from "../helpers/events.js";

/** Applies decided records in order, numbering them like a log would. */
function applyAll(state: TurnsState, recs: TurnDecision[]): TurnDecision[] {
  let n = 100;
  for (const r of recs) applyTurnRecord(state, { ...r, n: ++n } as TurnStartRecord | CompletionRecord | TurnEndRecord);
  return recs;
}

function setup() {
  const p = testProject({ agents: ["planner", "coder", "tester"] });
  const root = p.root(p.owner, "Build a CLI that prints the weather");
  const conv: Conversation = {
    id: root.id, rootKind: 11, title: "weather", project: p.coordinate, createdAt: root.created_at,
    updatedAt: root.created_at, events: [], eventsById: new Map(), order: emptyOrder(), lastN: 1, phase: initialPhaseState(),
    turns: initialTurnsState(), exec: initialExecState(), views: new Map(), status: "open", archived: false,
    participants: new Set([root.pubkey]),
  };
  const stored = { t: "event" as const, n: 1, at: 1, ev: root, origin: "relay" as const };
  conv.events.push(stored);
  conv.eventsById.set(root.id, stored);
  const slugByPubkey = new Map(p.info.agents.map((a) => [a.pubkey, a.slug]));
  const nameOf = (pk: string) => slugByPubkey.get(pk) ?? pk.slice(0, 8);
  /** A real `tool=complete` event from `agent`, p-tagging the orchestrator. */
  const completion = (agent: TestKey, text: string): NostrEvent =>
    p.reply(agent, root, text, [p.orchestrator.pubkey], [["tool", "complete"], ["phase", "execute"]]);
  const complete = (agent: TestKey, text: string, now: number, ev = completion(agent, text)) =>
    applyAll(conv.turns, decideCompletion(conv.turns, { eventId: ev.id, agent: ev.pubkey, message: ev.content }, now));
  const start = (turnId: string, phase: Phase, agents: TestKey[], now: number, timeoutMs?: number) =>
    applyAll(conv.turns, decideStartTurn(conv.turns, {
      turnId, phase, agents: agents.map((a) => a.pubkey), reason: `route ${turnId}`, ...(timeoutMs ? { timeoutMs } : {}),
    }, now));
  return { p, root, conv, nameOf, completion, complete, start, planner: p.agents.planner!, coder: p.agents.coder!, tester: p.agents.tester! };
}

describe("orchestrator turns", () => {
  it("completes a turn when every listed agent has completed", () => {
    const s = setup();
    s.start("t1", "execute", [s.coder, s.tester], 1000);
    expect(s.complete(s.coder, "code written", 1100).map((r) => r.t)).toEqual(["completion"]);
    expect(currentTurn(s.conv.turns)?.turnId).toBe("t1");
    const recs = s.complete(s.tester, "tests pass", 1200);
    expect(recs.map((r) => r.t)).toEqual(["completion", "turn_end"]);
    expect(recs[1]).toMatchObject({ status: "completed", turnId: "t1", at: 1200 });
    const turn = s.conv.turns.byId.get("t1")!;
    expect(turn).toMatchObject({ status: "completed", number: 1, endedAt: 1200 });
    expect(turn.completions.size).toBe(2);
    expect(currentTurn(s.conv.turns)).toBeUndefined();
  });

  it("counts the same completion event once", () => {
    const s = setup();
    s.start("t1", "execute", [s.coder, s.tester], 1000);
    const ev = s.completion(s.coder, "done");
    expect(s.complete(s.coder, "done", 1100, ev)).toHaveLength(1);
    expect(s.complete(s.coder, "done", 1101, ev)).toEqual([]);
    // Applying the same logged record twice (a replay) changes nothing either.
    applyTurnRecord(s.conv.turns, { t: "completion", n: 9, at: 1102, turnId: "t1", eventId: ev.id, agent: ev.pubkey, message: "x" });
    const turn = s.conv.turns.byId.get("t1")!;
    expect(turn.completions.size).toBe(1);
    expect(turn.completions.get(ev.id)!.message).toBe("done");
    expect(turn.status).toBe("open");
  });

  it("counts an agent completing twice (two events) once for completeness", () => {
    const s = setup();
    s.start("t1", "execute", [s.coder, s.tester], 1000);
    s.complete(s.coder, "first", 1100);
    expect(s.complete(s.coder, "second", 1200).map((r) => r.t)).toEqual(["completion"]);
    expect(currentTurn(s.conv.turns)?.status).toBe("open");
    expect(s.complete(s.tester, "ok", 1300).map((r) => r.t)).toEqual(["completion", "turn_end"]);
  });

  it("ignores a completion by an agent not routed in the turn", () => {
    const s = setup();
    s.start("t1", "execute", [s.coder], 1000);
    expect(s.complete(s.planner, "I did it anyway", 1100)).toEqual([]);
    expect(s.conv.turns.byId.get("t1")!.completions.size).toBe(0);
    expect(currentTurn(s.conv.turns)?.turnId).toBe("t1");
  });

  it("times a turn out: it leaves current_routing and shows in routing_history as timeout", () => {
    const s = setup();
    s.start("t1", "plan", [s.planner, s.coder], 1000, 5000);
    s.complete(s.planner, "plan drafted", 2000);
    expect(decideTimeouts(s.conv.turns, 5999)).toEqual([]);
    let ctx = buildRoutingContext(s.conv, s.nameOf);
    expect(ctx.user_request).toBe("Build a CLI that prints the weather");
    expect(ctx.current_routing).toMatchObject({ turn: 1, phase: "plan", agents: ["planner", "coder"], status: "open" });
    const recs = applyAll(s.conv.turns, decideTimeouts(s.conv.turns, 6000));
    expect(recs).toEqual([{ t: "turn_end", at: 6000, turnId: "t1", status: "timeout", reason: expect.stringContaining("1 of 2") }]);
    ctx = buildRoutingContext(s.conv, s.nameOf);
    expect(ctx.current_routing).toBeNull();
    expect(ctx.routing_history).toEqual([{
      turn: 1, phase: "plan", agents: ["planner", "coder"], reason: "route t1", timestamp: 1000, status: "timeout",
      completions: [{ agent: "planner", message: "plan drafted", timestamp: 2000 }],
    }]);
    expect(decideTimeouts(s.conv.turns, 9000)).toEqual([]);
  });

  it("cancels the open turn, and a new turn supersedes an open one", () => {
    const s = setup();
    expect(decideCancel(s.conv.turns, "nothing open", 10)).toEqual([]);
    s.start("t1", "execute", [s.coder], 1000);
    const recs = s.start("t2", "execute", [s.tester], 2000);
    expect(recs.map((r) => r.t)).toEqual(["turn_end", "turn_start"]);
    expect(s.conv.turns.byId.get("t1")).toMatchObject({ status: "cancelled", endReason: "superseded by t2" });
    applyAll(s.conv.turns, decideCancel(s.conv.turns, "user changed their mind", 3000));
    expect(s.conv.turns.byId.get("t2")).toMatchObject({ status: "cancelled", endReason: "user changed their mind", number: 2 });
    const ctx = buildRoutingContext(s.conv, s.nameOf);
    expect(ctx.current_routing).toBeNull();
    expect(ctx.routing_history.map((e) => [e.turn, e.status])).toEqual([[1, "cancelled"], [2, "cancelled"]]);
    // Late completions for a cancelled turn are ignored.
    expect(s.complete(s.tester, "late", 4000)).toEqual([]);
  });

  it("ignores a replayed start for a known turn id and refuses a turn without agents", () => {
    const s = setup();
    s.start("t1", "chat", [s.planner], 1000);
    expect(s.start("t1", "chat", [s.planner], 1001)).toEqual([]);
    expect(() => decideStartTurn(s.conv.turns, { turnId: "t2", phase: "chat", agents: [], reason: "?" }, 1002)).toThrow(/no agent/);
    expect(s.conv.turns.turns).toHaveLength(1);
  });

  it("gives an empty user_request when the root has not arrived", () => {
    const s = setup();
    s.conv.eventsById.clear();
    s.conv.events.length = 0;
    expect(buildRoutingContext(s.conv, s.nameOf).user_request).toBe("");
  });
});

describe("routing health", () => {
  const opts = { repeatThreshold: 3, stallThreshold: 3 };

  it("flags repeated identical routing at the threshold and not before", () => {
    const s = setup();
    s.start("t1", "execute", [s.coder, s.tester], 1000);
    s.complete(s.coder, "a", 1001);
    s.start("t2", "execute", [s.tester, s.coder], 2000);
    s.complete(s.coder, "b", 2001);
    expect(detectRoutingProblems(s.conv.turns, opts).repeatedRouting).toBeUndefined();
    s.start("t3", "execute", [s.coder, s.tester], 3000);
    expect(detectRoutingProblems(s.conv.turns, opts).repeatedRouting).toEqual({
      phase: "execute", agents: [s.coder.pubkey, s.tester.pubkey], count: 3,
    });
    s.start("t4", "execute", [s.coder, s.tester], 4000);
    expect(detectRoutingProblems(s.conv.turns, opts).repeatedRouting?.count).toBe(4);
    // A different phase breaks the run.
    s.start("t5", "verification", [s.coder, s.tester], 5000);
    expect(detectRoutingProblems(s.conv.turns, opts).repeatedRouting).toBeUndefined();
  });

  it("detects a stall: turns ending without progress, reset by a turn that progressed", () => {
    const s = setup();
    s.start("t1", "plan", [s.planner], 1000, 100);
    applyAll(s.conv.turns, decideTimeouts(s.conv.turns, 1100));
    s.start("t2", "execute", [s.coder], 2000); // superseded (cancelled) by t3
    expect(detectRoutingProblems(s.conv.turns, opts).stalled).toBeUndefined();
    s.start("t3", "verification", [s.tester], 3000);
    // t3 is open with nothing completed: the third turn in a row without progress.
    expect(detectRoutingProblems(s.conv.turns, opts)).toEqual({ stalled: { turnsWithoutProgress: 3 } });
    s.complete(s.tester, "verified", 3100);
    expect(detectRoutingProblems(s.conv.turns, opts).stalled).toBeUndefined();
    expect(detectRoutingProblems(initialTurnsState(), opts)).toEqual({});
    expect(() => detectRoutingProblems(s.conv.turns, { repeatThreshold: 0, stallThreshold: 3 })).toThrow(/repeatThreshold/);
  });
});
