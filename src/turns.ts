// Orchestrator turns (docs/contract.md): a turn routes agents in a phase for a reason; it completes
// when every routed agent has sent a completion, or it times out or is cancelled. At most one
// turn is open at a time: it is always the last one.

import type { Turn, TurnsState } from "./conversation-state.js";
import { DomainError } from "./errors.js";
import type { CompletionRecord, TurnEndRecord, TurnStartRecord } from "./records.js";
import type { Phase } from "./types.js";

export type TurnDecision = Omit<TurnStartRecord, "n"> | Omit<CompletionRecord, "n"> | Omit<TurnEndRecord, "n">;

export interface StartTurnRequest {
  turnId: string;
  phase: Phase;
  /** Pubkeys of the agents routed. */
  agents: string[];
  reason: string;
  /** The turn times out this long after it starts; no deadline when absent. */
  timeoutMs?: number;
}

export interface CompletionInput {
  /** Id of the `tool=complete` event. */
  eventId: string;
  /** Pubkey of the completing agent. */
  agent: string;
  message: string;
}

export const initialTurnsState = (): TurnsState => ({ turns: [], byId: new Map() });

/** The open turn, if any. */
export function currentTurn(state: TurnsState): Turn | undefined {
  const last = state.turns[state.turns.length - 1];
  return last?.status === "open" ? last : undefined;
}

const end = (turn: Turn, status: TurnEndRecord["status"], reason: string, now: number): Omit<TurnEndRecord, "n"> =>
  ({ t: "turn_end", at: now, turnId: turn.turnId, status, reason });

/**
 * Records that start a turn, closing a still-open one first (a new routing supersedes it).
 * A turn id already known yields nothing, so a replayed request is harmless.
 */
export function decideStartTurn(state: TurnsState, req: StartTurnRequest, now: number): TurnDecision[] {
  if (state.byId.has(req.turnId)) return [];
  const agents = [...new Set(req.agents)];
  // A turn without agents could never complete; it is a routing mistake, not a turn.
  if (agents.length === 0) throw new DomainError(`turn ${req.turnId} routes no agent`, "empty_turn");
  const out: TurnDecision[] = [];
  const open = currentTurn(state);
  if (open) out.push(end(open, "cancelled", `superseded by ${req.turnId}`, now));
  out.push({
    t: "turn_start", at: now, turnId: req.turnId, phase: req.phase, agents, reason: req.reason,
    ...(req.timeoutMs !== undefined ? { deadline: now + req.timeoutMs } : {}),
  });
  return out;
}

/** Agents of the turn that have not completed yet, were `extra` to complete too. */
function pendingAgents(turn: Turn, extra?: string): string[] {
  const done = new Set<string>();
  for (const c of turn.completions.values()) done.add(c.agent);
  if (extra !== undefined) done.add(extra);
  return turn.agents.filter((a) => !done.has(a));
}

/**
 * A completion for the open turn, idempotent by event id; plus the turn's end when it was the
 * last agent missing. An agent completing twice (two events) is recorded twice but counts once.
 */
export function decideCompletion(state: TurnsState, c: CompletionInput, now: number): TurnDecision[] {
  const turn = currentTurn(state);
  if (!turn || !turn.agents.includes(c.agent) || turn.completions.has(c.eventId)) return [];
  const out: TurnDecision[] = [
    { t: "completion", at: now, turnId: turn.turnId, eventId: c.eventId, agent: c.agent, message: c.message },
  ];
  if (pendingAgents(turn, c.agent).length === 0) out.push(end(turn, "completed", "all agents completed", now));
  return out;
}

/** The open turn's end when `now` has reached its deadline. */
export function decideTimeouts(state: TurnsState, now: number): TurnDecision[] {
  const turn = currentTurn(state);
  if (!turn || turn.deadline === undefined || now < turn.deadline) return [];
  const waiting = pendingAgents(turn).length;
  return [end(turn, "timeout", `deadline passed with ${waiting} of ${turn.agents.length} agents not completed`, now)];
}

export function decideCancel(state: TurnsState, reason: string, now: number): TurnDecision[] {
  const turn = currentTurn(state);
  return turn ? [end(turn, "cancelled", reason, now)] : [];
}

/**
 * Folds a turn record into the state, in place. Records about unknown or already-ended turns
 * change nothing: replaying a log twice over the same state must not corrupt it.
 */
export function applyTurnRecord(state: TurnsState, rec: TurnStartRecord | CompletionRecord | TurnEndRecord): void {
  if (rec.t === "turn_start") {
    if (state.byId.has(rec.turnId)) return;
    const turn: Turn = {
      turnId: rec.turnId, number: state.turns.length + 1, phase: rec.phase, agents: [...rec.agents],
      reason: rec.reason, startedAt: rec.at, completions: new Map(), status: "open",
      ...(rec.deadline !== undefined ? { deadline: rec.deadline } : {}),
    };
    state.turns.push(turn);
    state.byId.set(turn.turnId, turn);
    return;
  }
  const turn = state.byId.get(rec.turnId);
  if (!turn) return;
  if (rec.t === "completion") {
    if (!turn.completions.has(rec.eventId)) turn.completions.set(rec.eventId, rec);
    return;
  }
  if (turn.status !== "open") return;
  turn.status = rec.status;
  turn.endedAt = rec.at;
  if (rec.reason !== undefined) turn.endReason = rec.reason;
}
