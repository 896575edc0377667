import { describe, it, expect } from "vitest";
import { applyPhaseRecord, canTransition, decidePhaseChange, initialPhaseState, TRANSITIONS } from "../../src/phases.js";
import type { PhaseState } from "../../src/conversation-state.js";
import type { PhaseRecord, PhaseRefusedRecord, ReadFileRecord } from "../../src/records.js";
import type { Phase } from "../../src/types.js";
import { PHASES } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

/** Decides and applies, as the reducer would, numbering records like a log. */
function change(state: PhaseState, to: Phase, by: string, message: string, n: number, eventId?: string) {
  const rec = { ...decidePhaseChange(state, { to, by, message, reason: `to ${to}`, ...(eventId ? { eventId } : {}) }, 1000 + n), n };
  applyPhaseRecord(state, rec as PhaseRecord | PhaseRefusedRecord);
  return rec;
}

describe("phases", () => {
  it("follows the full cycle chat→plan→execute→verification→chores→reflection→chat", () => {
    const p = testProject();
    const state = initialPhaseState();
    const chain: Phase[] = ["plan", "execute", "verification", "chores", "reflection", "chat"];
    chain.forEach((to, i) => {
      const ev = p.reply(p.orchestrator, p.root(p.owner, "go"), `moving to ${to}`, [], [["phase", to]]);
      const rec = change(state, to, p.orchestrator.pubkey, ev.content, i + 1, ev.id);
      expect(rec.t).toBe("phase");
      expect(rec).toMatchObject({ to, by: p.orchestrator.pubkey, eventId: ev.id, at: 1000 + i + 1 });
      expect(state.phase).toBe(to);
    });
    expect(state.transitions.map((t) => `${t.from}→${t.to}`)).toEqual([
      "chat→plan", "plan→execute", "execute→verification", "verification→chores", "chores→reflection", "reflection→chat",
    ]);
    expect(state.refused).toEqual([]);
  });

  it("records a same-phase change as a handoff and keeps the phase", () => {
    const p = testProject();
    const state = initialPhaseState();
    change(state, "execute", p.orchestrator.pubkey, "build it", 1);
    const rec = change(state, "execute", p.agents.planner!.pubkey, "coder, your turn", 2);
    expect(rec).toMatchObject({ t: "phase", from: "execute", to: "execute" });
    expect(state.phase).toBe("execute");
    expect(state.transitions).toHaveLength(2);
    expect(state.transitions[1]!.by).toBe(p.agents.planner!.pubkey);
  });

  it("keeps the transition message byte for byte", () => {
    const p = testProject();
    const message = "Plan ✅ — naïve café 日本語 🚀\r\n\n  indented line\t\ntrailing spaces   \n\u0000end  ";
    const ev = p.reply(p.agents.planner!, p.root(p.owner, "start"), message, [], [["phase", "plan"]]);
    const state = initialPhaseState();
    change(state, "plan", ev.pubkey, ev.content, 1, ev.id);
    const stored = state.transitions[0]!.message;
    expect(stored).toBe(message);
    expect(Buffer.from(stored, "utf8").equals(Buffer.from(message, "utf8"))).toBe(true);
    // And it survives the log's JSON line round trip.
    expect((JSON.parse(JSON.stringify(state.transitions[0])) as PhaseRecord).message).toBe(message);
  });

  it("refuses an illegal transition (plan→chat), records why, and leaves the phase alone", () => {
    const p = testProject();
    const state = initialPhaseState();
    change(state, "plan", p.orchestrator.pubkey, "plan it", 1);
    const ev = p.reply(p.agents.coder!, p.root(p.owner, "x"), "let's just chat", [], [["phase", "chat"]]);
    const rec = change(state, "chat", ev.pubkey, ev.content, 2, ev.id);
    expect(rec.t).toBe("phase_refused");
    expect(rec.reason).toBe("transition plan→chat is not allowed (allowed from plan: execute)");
    expect(state.phase).toBe("plan");
    expect(state.transitions).toHaveLength(1);
    expect(state.refused).toHaveLength(1);
    expect(state.refused[0]).toMatchObject({ from: "plan", to: "chat", by: ev.pubkey, eventId: ev.id, message: "let's just chat" });
  });

  it("clears readFiles on reflection→chat and only then", () => {
    const p = testProject();
    const state = initialPhaseState();
    const read = (path: string, n: number): ReadFileRecord => ({ t: "read_file", path, n, at: n });
    applyPhaseRecord(state, read("src/a.ts", 1));
    applyPhaseRecord(state, read("src/a.ts", 2));
    applyPhaseRecord(state, read("src/b.ts", 3));
    expect(state.readFiles).toEqual(["src/a.ts", "src/b.ts"]);
    let n = 3;
    for (const to of ["execute", "verification", "chores", "reflection"] as const) {
      change(state, to, p.orchestrator.pubkey, to, ++n);
      expect(state.readFiles).toEqual(["src/a.ts", "src/b.ts"]);
    }
    change(state, "chat", p.orchestrator.pubkey, "done", ++n);
    expect(state.phase).toBe("chat");
    expect(state.readFiles).toEqual([]);
  });

  it("applies a logged transition without re-checking it (the log is the truth)", () => {
    const state = initialPhaseState();
    applyPhaseRecord(state, { t: "phase", n: 1, at: 1, from: "chat", to: "chores", by: "x", message: "", reason: "" });
    expect(state.phase).toBe("chores");
  });

  it("allows exactly the transitions of the table, plus same-phase handoffs", () => {
    for (const from of PHASES) {
      for (const to of PHASES) expect(canTransition(from, to)).toBe(from === to || TRANSITIONS[from].includes(to));
    }
    expect(canTransition("chat", "execute")).toBe(true);
    expect(canTransition("chores", "chat")).toBe(false);
  });
});
