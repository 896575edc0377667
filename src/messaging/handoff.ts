// Phase handoffs: a phase change carries a message saying what was done and for which turn,
// so the next phase's agents (and a human reading the log) know where the work stands.

import type { Conversation } from "../conversation-state.js";
import { decidePhaseChange, type PhaseDecision } from "../phases.js";
import { currentTurn } from "../turns.js";
import type { Phase } from "../types.js";

export interface HandoffText {
  from: Phase;
  to: Phase;
  /** Number of the orchestrator turn it belongs to, when one is open. */
  turn?: number;
  summary: string;
}

/** "Phase handoff execute → verification (turn 3): tests written, 2 failing". */
export function handoffMessage(h: HandoffText): string {
  const turn = h.turn !== undefined ? ` (turn ${h.turn})` : "";
  const summary = h.summary.trim();
  return `Phase handoff ${h.from} → ${h.to}${turn}${summary ? `: ${summary}` : ""}`;
}

export interface HandoffRequest {
  to: Phase;
  /** Pubkey of whoever hands off. */
  by: string;
  summary: string;
  reason?: string;
  /** Event that carried the request. */
  eventId?: string;
}

export interface HandoffDecision {
  /** The phase record, or the refusal record with its reason. */
  record: PhaseDecision;
  message: string;
  turn?: number;
}

export function decideHandoff(
  conv: Pick<Conversation, "phase" | "turns">, req: HandoffRequest, now: number,
): HandoffDecision {
  const turn = currentTurn(conv.turns)?.number;
  const message = handoffMessage({ from: conv.phase.phase, to: req.to, summary: req.summary, ...(turn !== undefined ? { turn } : {}) });
  const record = decidePhaseChange(conv.phase, {
    to: req.to, by: req.by, message, reason: req.reason ?? "phase handoff",
    ...(req.eventId !== undefined ? { eventId: req.eventId } : {}),
    ...(turn !== undefined ? { turn } : {}),
  }, now);
  return { record, message, ...(turn !== undefined ? { turn } : {}) };
}
