// What the orchestrator reads before routing (TENEX's shape): the user's request, the turns
// that ran and how they ended, and the turn still open, with agents named by slug.

import type { Conversation, Turn, TurnStatus } from "./conversation-state.js";
import type { Phase } from "./types.js";

export interface RoutingCompletion {
  agent: string;
  message: string;
  timestamp: number;
}

export interface RoutingEntry {
  /** 1-based turn number. */
  turn: number;
  phase: Phase;
  /** Agent slugs. */
  agents: string[];
  reason: string;
  /** When the turn started (epoch ms). */
  timestamp: number;
  status: TurnStatus;
  completions: RoutingCompletion[];
}

export interface RoutingContext {
  user_request: string;
  /** Every ended turn (completed, timed out, cancelled), oldest first. */
  routing_history: RoutingEntry[];
  /** The open turn, or null when none is open. */
  current_routing: RoutingEntry | null;
}

function toEntry(turn: Turn, nameOf: (pubkey: string) => string): RoutingEntry {
  return {
    turn: turn.number,
    phase: turn.phase,
    agents: turn.agents.map(nameOf),
    reason: turn.reason,
    timestamp: turn.startedAt,
    status: turn.status,
    completions: [...turn.completions.values()].map((c) => ({ agent: nameOf(c.agent), message: c.message, timestamp: c.at })),
  };
}

export function buildRoutingContext(conv: Conversation, nameOf: (pubkey: string) => string): RoutingContext {
  const history: RoutingEntry[] = [];
  let current: RoutingEntry | null = null;
  for (const turn of conv.turns.turns) {
    if (turn.status === "open") current = toEntry(turn, nameOf);
    else history.push(toEntry(turn, nameOf));
  }
  return {
    // The root may not have arrived yet (a reply can come first): then nothing was asked yet.
    user_request: conv.eventsById.get(conv.id)?.ev.content ?? "",
    routing_history: history,
    current_routing: current,
  };
}
