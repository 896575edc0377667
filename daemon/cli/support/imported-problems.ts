// After an import: the problems it brought (an agent's unread mail over the threshold, a
// conversation whose routing loops or stalls) are recorded as already told in the escalator's
// state, so the daemon's first checks do not escalate imported history to the owner; the
// import's report names them instead (src/messaging/imported-problems.ts decides).

import type { SqliteIndex } from "../../../adapters/sqlite-index/index.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { decideImportedProblems } from "../../../src/messaging/imported-problems.js";
import { detectRoutingProblems } from "../../../src/routing-health.js";
import { currentTurn } from "../../../src/turns.js";
import type { LoadedProject } from "../../config/index.js";
import { escalationState } from "../../engine/loops/escalation-state.js";

export interface ToldProblems {
  /** Slugs of agents over `limits.unreadThreshold` after the import. */
  agents: string[];
  /** Imported conversations whose orchestrator loops or stalls. */
  conversations: string[];
}

export async function recordImportedProblems(
  project: LoadedProject, index: SqliteIndex, conversations: Iterable<Conversation>, now: number,
): Promise<ToldProblems> {
  const { limits } = project.config;
  const openTurns = [...conversations].filter((c) => currentTurn(c.turns) !== undefined).map((c) => ({
    id: c.id,
    problems: detectRoutingProblems(c.turns, { repeatThreshold: limits.repeatRoutingThreshold, stallThreshold: limits.stallThreshold }),
  }));
  const problems: string[] = [];
  const state = escalationState(project.tenexDir, (detail) => problems.push(detail));
  const decision = decideImportedProblems(state.initial, {
    unread: project.agents.map((a) => ({ agent: a.pubkey, unread: index.unreadCount(a.pubkey, now) })),
    threshold: limits.unreadThreshold,
    openTurns,
  });
  if (decision.agents.length > 0 || decision.conversations.length > 0) await state.save(decision.flags);
  const slug = (pk: string) => project.agents.find((a) => a.pubkey === pk)?.slug ?? pk;
  return { agents: decision.agents.map(slug), conversations: decision.conversations };
}
