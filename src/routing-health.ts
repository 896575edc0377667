// Signs that the orchestrator is looping instead of moving the conversation forward. They are
// surfaced (status API, the orchestrator's context), never acted on here.
//
// Definitions, over the tail of the conversation's turns (any status):
// - repeated routing: the last `repeatThreshold` turns all have the same phase and the same set
//   of agents (order ignored). `count` is the length of that identical run.
// - stalled: the last `stallThreshold` turns made no progress. A turn made no progress when it
//   ended by timeout or cancellation (partial completions do not save it: the work it asked for
//   was not done), or when it is still open with no completion at all.
//   `turnsWithoutProgress` is the length of that run.

import type { Turn, TurnsState } from "./conversation-state.js";
import { DomainError } from "./errors.js";
import { currentTurn } from "./turns.js";
import type { Phase } from "./types.js";

export interface RoutingHealthOptions {
  repeatThreshold: number;
  stallThreshold: number;
}

export interface RoutingProblems {
  repeatedRouting?: { phase: Phase; agents: string[]; count: number };
  stalled?: { turnsWithoutProgress: number };
}

const routingKey = (t: Turn) => `${t.phase}|${[...t.agents].sort().join(",")}`;

const madeNoProgress = (t: Turn) =>
  t.status === "timeout" || t.status === "cancelled" || (t.status === "open" && t.completions.size === 0);

/** Length of the run of turns at the end of `turns` that satisfy `pred`. */
function trailingRun(turns: readonly Turn[], pred: (t: Turn) => boolean): number {
  let i = turns.length - 1;
  while (i >= 0 && pred(turns[i]!)) i--;
  return turns.length - 1 - i;
}

function checkThreshold(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new DomainError(`${name} must be an integer ≥ 1, got ${v}`, "bad_threshold");
}

export function detectRoutingProblems(turns: TurnsState, opts: RoutingHealthOptions): RoutingProblems {
  checkThreshold("repeatThreshold", opts.repeatThreshold);
  checkThreshold("stallThreshold", opts.stallThreshold);
  const problems: RoutingProblems = {};
  const last = turns.turns[turns.turns.length - 1];
  if (!last) return problems;

  const key = routingKey(last);
  const repeats = trailingRun(turns.turns, (t) => routingKey(t) === key);
  if (repeats >= opts.repeatThreshold) {
    problems.repeatedRouting = { phase: last.phase, agents: [...last.agents], count: repeats };
  }
  const stalled = trailingRun(turns.turns, madeNoProgress);
  if (stalled >= opts.stallThreshold) problems.stalled = { turnsWithoutProgress: stalled };
  return problems;
}

export interface StuckTurn {
  turn: Turn;
  /** Past its deadline. */
  overdue: boolean;
  problems: RoutingProblems;
  /** Pubkeys of the routed agents that have not completed. */
  waitingFor: string[];
}

/** The open turn, when it is past its deadline or the conversation's routing loops or stalls. */
export function stuckTurn(turns: TurnsState, now: number, opts: RoutingHealthOptions): StuckTurn | undefined {
  const turn = currentTurn(turns);
  if (!turn) return undefined;
  const problems = detectRoutingProblems(turns, opts);
  const overdue = turn.deadline !== undefined && now > turn.deadline;
  if (!overdue && !problems.repeatedRouting && !problems.stalled) return undefined;
  const done = new Set([...turn.completions.values()].map((c) => c.agent));
  return { turn, overdue, problems, waitingFor: turn.agents.filter((a) => !done.has(a)) };
}
