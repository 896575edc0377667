// Who an accepted event sets to work: the one decision, taken once per event on the state the
// event produced (its conversation already holds it: a completion may have closed the turn, the
// root says whose conversation it is). decideTrigger (routing.ts) names the first addressed
// agent in the conversation's participation; the orchestrator's routing replies set every routed
// agent to work; a completion wakes the orchestrator only once its turn has nobody left to wait
// for; and only the agents the daemon runs itself are run (command agents: mailbox agents pull
// their work through the API).

import type { Conversation } from "./conversation-state.js";
import { participationOf } from "./messaging/participation.js";
import { decideTrigger, orchestratorOf } from "./routing.js";
import { isCompletion } from "./tags.js";
import { currentTurn } from "./turns.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "./types.js";

/** The agents `ev` sets to work in `conv`, in order, as `runnable` (the agents the daemon runs, by pubkey) holds them. */
export function decideRuns<A>(conv: Conversation, ev: NostrEvent, project: ProjectInfo, runnable: ReadonlyMap<string, A>): A[] {
  const decision = decideTrigger(ev, project, participationOf(conv.eventsById.get(conv.id)?.ev, project));
  if (decision.action !== "trigger") return [];
  return triggered(conv, ev, decision.agent, decision.addressed, orchestratorOf(project)).flatMap((a) => {
    const agent = runnable.get(a.pubkey);
    return agent === undefined ? [] : [agent];
  });
}

function triggered(conv: Conversation, ev: NostrEvent, agent: AgentInfo, addressed: AgentInfo[], orchestrator: AgentInfo | undefined): AgentInfo[] {
  if (ev.pubkey === orchestrator?.pubkey) return addressed;
  if (agent.pubkey === orchestrator?.pubkey && isCompletion(ev.tags)) {
    const turn = currentTurn(conv.turns);
    if (turn && turn.status === "open") return [];
  }
  return [agent];
}
