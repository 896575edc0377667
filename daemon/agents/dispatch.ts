// Which agents an acknowledged event sets to work. decideTrigger (src/routing.ts) names the
// first addressed agent; the orchestrator's routing replies set every routed agent to work, and
// a completion wakes the orchestrator only once its turn has nobody left to wait for.

import type { Conversation } from "../../src/conversation-state.js";
import type { TriggerDecision } from "../../src/routing.js";
import { isCompletion } from "../../src/tags.js";
import { currentTurn } from "../../src/turns.js";
import type { AgentInfo, NostrEvent } from "../../src/types.js";

export function agentsToRun(conv: Conversation, ev: NostrEvent, decision: TriggerDecision, orchestrator: AgentInfo): AgentInfo[] {
  if (decision.action !== "trigger") return [];
  if (ev.pubkey === orchestrator.pubkey) return decision.addressed;
  if (decision.agent.pubkey === orchestrator.pubkey && isCompletion(ev.tags)) {
    const turn = currentTurn(conv.turns);
    if (turn && turn.status === "open") return [];
  }
  return [decision.agent];
}
