// Problems that arrive with imported history are told by the import, not escalated by the daemon.
// An import can bring an agent's unread mail over the threshold (mail its old system never had
// it process) or a conversation whose orchestrator was already looping; the escalator would tell
// the owner about each ~30 s after the next start, about something that happened elsewhere and
// before. The import reports them instead and records them as told (the escalator's flags,
// src/messaging/escalation-flags.ts): the escalator clears them once they clear, and escalates
// a relapse, or anything that goes wrong after the import, as always.

import type { RoutingProblems } from "../routing-health.js";
import { decideBackpressure, decideStallEscalation } from "./escalation.js";
import type { EscalationFlags } from "./escalation-flags.js";

export interface ImportedState {
  /** Unread mail per agent after the import. */
  unread: readonly { agent: string; unread: number }[];
  threshold: number;
  /** Imported conversations with an open turn, and their routing problems. */
  openTurns: readonly { id: string; problems: RoutingProblems }[];
}

export interface ImportedProblems {
  /** The flags to keep: the ones before, plus the problems below. */
  flags: EscalationFlags;
  /** Agents over the threshold that were not flagged yet. */
  agents: string[];
  /** Conversations that loop or stall and were not flagged yet. */
  conversations: string[];
}

export function decideImportedProblems(before: EscalationFlags, state: ImportedState): ImportedProblems {
  const agents = decideBackpressure({ flagged: new Set(before.agents) }, state.unread, state.threshold).flag;
  const flaggedConversations = new Set(before.conversations);
  const conversations = state.openTurns.flatMap((c) => decideStallEscalation({ flagged: flaggedConversations }, c.id, c.problems).flag);
  return {
    flags: { agents: [...before.agents, ...agents], conversations: [...before.conversations, ...conversations] },
    agents, conversations,
  };
}
