// Conversation phases (docs/contract.md): the transition table, the decision to change phase
// (pure: state + request + time in, one record out) and the fold of phase records into state.

import type { PhaseState } from "./conversation-state.js";
import type { PhaseRecord, PhaseRefusedRecord, ReadFileRecord } from "./records.js";
import type { Phase } from "./types.js";

export const TRANSITIONS: Readonly<Record<Phase, readonly Phase[]>> = {
  chat: ["execute", "plan", "brainstorm"],
  brainstorm: ["chat", "plan", "execute"],
  plan: ["execute"],
  execute: ["verification", "chat"],
  verification: ["chores", "execute", "chat"],
  chores: ["reflection"],
  reflection: ["chat"],
};

/** A same-phase change is a handoff between agents, always allowed. */
export const canTransition = (from: Phase, to: Phase): boolean =>
  from === to || TRANSITIONS[from].includes(to);

export const initialPhaseState = (): PhaseState => ({
  phase: "chat",
  transitions: [],
  refused: [],
  readFiles: [],
});

/** What a phase change asks for: the record's own fields (see PhaseRecord). */
export type PhaseChangeRequest = Pick<PhaseRecord, "to" | "by" | "message" | "reason" | "eventId" | "turn">;

export type PhaseDecision = Omit<PhaseRecord, "n"> | Omit<PhaseRefusedRecord, "n">;

export function decidePhaseChange(state: PhaseState, req: PhaseChangeRequest, now: number): PhaseDecision {
  const from = state.phase;
  const optional = req.eventId !== undefined ? { eventId: req.eventId } : {};
  if (!canTransition(from, req.to)) {
    return {
      t: "phase_refused", at: now, from, to: req.to, by: req.by, message: req.message,
      reason: `transition ${from}→${req.to} is not allowed (allowed from ${from}: ${TRANSITIONS[from].join(", ")})`,
      ...optional,
    };
  }
  return {
    t: "phase", at: now, from, to: req.to, by: req.by, message: req.message, reason: req.reason,
    ...optional,
    ...(req.turn !== undefined ? { turn: req.turn } : {}),
  };
}

/**
 * Folds a phase-related record into the state, in place. It does not re-check legality:
 * the log is the truth, and decidePhaseChange already checked before the record was written.
 */
export function applyPhaseRecord(state: PhaseState, rec: PhaseRecord | PhaseRefusedRecord | ReadFileRecord): void {
  switch (rec.t) {
    case "phase":
      // A reflection closes a cycle of work: the files read during it no longer matter.
      if (rec.from === "reflection" && rec.to === "chat") state.readFiles = [];
      state.phase = rec.to;
      state.transitions.push(rec);
      return;
    case "phase_refused":
      state.refused.push(rec);
      return;
    case "read_file":
      if (!state.readFiles.includes(rec.path)) state.readFiles.push(rec.path);
      return;
  }
}
