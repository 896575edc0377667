// Phase transitions (TENEX's ConversationManager.test: updatePhase) and execution time (its
// executionTime.test), case by case, on tenexd's records: decided, logged, folded, and the same
// after a replay of the log.

import { describe, expect, it } from "vitest";
import { stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation, replay } from "../../src/conversation-reducer.js";
import type { ExecState } from "../../src/conversation-state.js";
import { applyExecRecord, decideExecBeat, decideExecStart, decideExecStop, initialExecState, recoverOpenSession, totalExecutionSeconds, type ExecDecision } from "../../src/execution-time.js";
import { buildReply } from "../../src/agent-events/index.js";
import { decidePhaseChange } from "../../src/phases.js";
import type { LogRecord } from "../../src/records.js";
import type { Phase } from "../../src/types.js";
import { CAST } from "./harness.js";

const REQUIREMENTS = `## User Requirements
- Build a CLI tool
- Support multiple commands
- Include documentation

## Technical Constraints
- Must use TypeScript
- Node.js 18+
- No external dependencies`;

const COMPLEX = `# Complex Transition Message

## Section 2: Technical Details
\`\`\`typescript
interface Config {
    version: string;
}
\`\`\`

Special characters: "quotes", 'apostrophes', \`backticks\`, \\backslashes\\`;

interface PhaseCase {
  name: string;
  tenex: string;
  differs?: string;
  changes: { to: Phase; message: string; reason?: string }[];
  /** Phase at the end, and [from→to, message?] of every recorded transition. */
  phase: Phase;
  transitions: { from: Phase; to: Phase; message?: string; reason?: string }[];
  refused?: string[];
}

const PHASE_CASES: PhaseCase[] = [
  {
    name: "a transition is recorded with its message, by whom and why",
    tenex: "ConversationManager: should create and store phase transitions with mandatory message",
    changes: [{ to: "plan", message: REQUIREMENTS, reason: "requirements gathered" }],
    phase: "plan",
    transitions: [{ from: "chat", to: "plan", message: REQUIREMENTS, reason: "requirements gathered" }],
  },
  {
    name: "several transitions, in order",
    tenex: "ConversationManager: should handle multiple phase transitions",
    changes: [
      { to: "plan", message: "Requirements: Build a CLI tool", reason: "moving to planning" },
      { to: "execute", message: "Plan: 1. Setup project 2. Implement commands 3. Add tests", reason: "plan approved" },
      { to: "verification", message: "Implementation complete: Created 5 files, all tests passing", reason: "ready for verification" },
    ],
    phase: "verification",
    transitions: [{ from: "chat", to: "plan" }, { from: "plan", to: "execute" }, { from: "execute", to: "verification" }],
  },
  {
    name: "a change to the same phase is a recorded handoff",
    tenex: "ConversationManager: should create handoff transition even when phase does not change",
    changes: [{ to: "chat", message: "Still in chat phase" }],
    phase: "chat",
    transitions: [{ from: "chat", to: "chat", message: "Still in chat phase" }],
  },
  {
    name: "the message is kept byte for byte",
    tenex: "ConversationManager: should preserve transition message content exactly",
    changes: [{ to: "plan", message: COMPLEX }],
    phase: "plan",
    transitions: [{ from: "chat", to: "plan", message: COMPLEX }],
  },
  {
    name: "a transition the table does not allow is recorded as refused and changes nothing",
    tenex: "ConversationManager.updatePhase (any phase to any phase)",
    differs: "TENEX accepts any transition; tenexd enforces the table of docs/contract.md and records the refusal with its reason",
    changes: [{ to: "plan", message: "planning" }, { to: "chores", message: "skip ahead" }],
    phase: "plan",
    transitions: [{ from: "chat", to: "plan" }],
    refused: ["transition plan→chores is not allowed (allowed from plan: execute)"],
  },
];

describe("conformance: phase transitions", () => {
  for (const c of PHASE_CASES) {
    it(`${c.name}  [${c.tenex}]${c.differs ? ` (differs: ${c.differs})` : ""}`, () => {
      const conv = emptyConversation("f".repeat(64));
      const log: LogRecord[] = [];
      let now = 1_000;
      for (const ch of c.changes) {
        const rec = decidePhaseChange(conv.phase, { to: ch.to, by: CAST.pm.pubkey, message: ch.message, reason: ch.reason ?? "" }, now++);
        for (const r of stamp(conv, [rec])) {
          applyRecord(conv, r);
          log.push(r);
        }
      }
      for (const state of [conv, replay(conv.id, log)]) {
        expect(state.phase.phase).toBe(c.phase);
        expect(state.phase.transitions.map((t) => ({ from: t.from, to: t.to, by: t.by, message: t.message, reason: t.reason })))
          .toEqual(c.transitions.map((t) => ({ by: CAST.pm.pubkey, message: expect.any(String), reason: expect.any(String), ...t })));
        expect(state.phase.refused.map((r) => r.reason)).toEqual(c.refused ?? []);
      }
    });
  }
});

type Op = ["start" | "beat" | "stop", number] | ["crash"];

interface TimeCase {
  name: string;
  tenex: string;
  differs?: string;
  ops: Op[];
  /** Whole seconds at `at` (ms). */
  at: number;
  seconds: number;
  open: boolean;
}

const S = 1_000;
const TIME_CASES: TimeCase[] = [
  { name: "a new conversation has no time and no session", tenex: "executionTime: should initialize execution time structure correctly", ops: [], at: 0, seconds: 0, open: false },
  { name: "a start opens a session", tenex: "executionTime: should start execution time tracking", ops: [["start", 0]], at: 0, seconds: 0, open: true },
  { name: "a start while open keeps the first start", tenex: "executionTime: should not restart if already active", ops: [["start", 0], ["start", 3 * S]], at: 5 * S, seconds: 5, open: true },
  { name: "a stop adds the session's time", tenex: "executionTime: should stop execution time and calculate duration", ops: [["start", 0], ["stop", 5 * S]], at: 9 * S, seconds: 5, open: false },
  { name: "the open session counts up to now", tenex: "executionTime: should calculate total time correctly including active session", ops: [["start", 0], ["stop", 10 * S], ["start", 20 * S]], at: 25 * S, seconds: 15, open: true },
  { name: "a stop with nothing open adds nothing", tenex: "executionTime: should handle stop when not active", ops: [["stop", 5 * S]], at: 5 * S, seconds: 0, open: false },
  { name: "sessions add up", tenex: "executionTime: should accumulate time across multiple start/stop cycles", ops: [["start", 0], ["stop", 5 * S], ["start", 10 * S], ["stop", 13 * S], ["start", 20 * S], ["stop", 27 * S]], at: 30 * S, seconds: 15, open: false },
  { name: "a year of work does not overflow", tenex: "executionTime: should handle very large time values without overflow", ops: [["start", 0], ["stop", 365 * 24 * 3600 * S]], at: 365 * 24 * 3600 * S, seconds: 365 * 24 * 3600, open: false },
  {
    name: "whole seconds", tenex: "executionTime: should round seconds correctly",
    differs: "TENEX rounds each session (1.4 s → 1, then +1.6 s → 2: 3); tenexd keeps milliseconds and rounds the total (3.0 s → 3): the same here, closer in general",
    ops: [["start", 0], ["stop", 1_400], ["start", 2 * S], ["stop", 3_600]], at: 4 * S, seconds: 3, open: false,
  },
  {
    name: "a session a crash left open is closed at its last heartbeat",
    tenex: "executionTime: should detect and reset stale active sessions",
    differs: "TENEX drops a session left open more than 30 minutes (its time is lost) and keeps a younger one running across the restart (counting the downtime); tenexd counts it up to its last proof of life, whatever its age (docs/contract.md)",
    ops: [["start", 0], ["beat", 40 * S], ["crash"]], at: 3_600 * S, seconds: 40, open: false,
  },
  { name: "rapid sessions add up", tenex: "executionTime: should handle rapid start/stop cycles", ops: [0, 1, 2, 3, 4].flatMap((i): Op[] => [["start", i * 2 * S], ["stop", i * 2 * S + S]]), at: 20 * S, seconds: 5, open: false },
];

describe("conformance: execution time", () => {
  for (const c of TIME_CASES) {
    it(`${c.name}  [${c.tenex}]${c.differs ? ` (differs: ${c.differs})` : ""}`, () => {
      const state: ExecState = initialExecState();
      let n = 0;
      const apply = (recs: ExecDecision[]) => recs.forEach((r) => applyExecRecord(state, { ...r, n: ++n }));
      for (const op of c.ops) {
        if (op[0] === "crash") apply(recoverOpenSession(state));
        else apply({ start: decideExecStart, beat: decideExecBeat, stop: decideExecStop }[op[0]](state, op[1]));
      }
      expect(totalExecutionSeconds(state, c.at)).toBe(c.seconds);
      expect(state.openSince !== undefined).toBe(c.open);
    });
  }

  it("the net-time tag of an agent's event  [executionTime: should provide accurate NET_TIME tag value] (differs: TENEX writes the conversation's total (42 + 8 = 50); tenexd writes the seconds this run took (8), docs/agent-protocol.md, and serves the conversation's total in `show` and the API)", () => {
    const state: ExecState = initialExecState();
    applyExecRecord(state, { t: "exec", op: "start", at: 0, n: 1 });
    applyExecRecord(state, { t: "exec", op: "stop", at: 42 * S, n: 2 });
    applyExecRecord(state, { t: "exec", op: "start", at: 100 * S, n: 3 });
    const reply = buildReply({
      root: { id: "a".repeat(64), kind: 11, pubkey: CAST.user.pubkey }, project: `31933:${CAST.owner.pubkey}:p`, phase: "chat",
      content: "done", netTimeSecs: 8, createdAt: 1,
    });
    expect(reply.tags).toContainEqual(["net-time", "8"]);
    expect(totalExecutionSeconds(state, 108 * S)).toBe(50);
  });
});
