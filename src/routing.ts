// Which agent an inbound conversation event triggers (docs/contract.md). Only the owner,
// whitelisted users and the project's agents may trigger anything; agent chatter that
// addresses no other agent is recorded but never executed, which is what stops loops. In a
// direct message or a discussion the orchestrator acts only as a party or when addressed
// (messaging/participation.ts).

import { isRootEvent } from "./conversation-of.js";
import { isConversationKind } from "./kinds.js";
import { excludesOrchestrator, TEAM, type Participation } from "./messaging/participation.js";
import { isCompletion, mentionedPubkeys } from "./tags.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "./types.js";

export type RejectReason = "not_authorised" | "not_a_conversation_event";

export type TriggerDecision =
  | { action: "trigger"; agent: AgentInfo; addressed: AgentInfo[]; reason: string }
  | { action: "record"; addressed: AgentInfo[]; reason: string }
  | { action: "reject"; reason: RejectReason };

export const agentByPubkey = (project: ProjectInfo, pubkey: string): AgentInfo | undefined =>
  project.agents.find((a) => a.pubkey === pubkey);

export const orchestratorOf = (project: ProjectInfo): AgentInfo | undefined =>
  project.agents.find((a) => a.isOrchestrator);

export const isAuthorised = (project: ProjectInfo, pubkey: string): boolean =>
  pubkey === project.ownerPubkey || project.whitelist.includes(pubkey) || agentByPubkey(project, pubkey) !== undefined;

/** Every p-tagged project agent except the author, in tag order; unknown pubkeys are skipped. */
export function addressedAgents(ev: NostrEvent, project: ProjectInfo): AgentInfo[] {
  const out: AgentInfo[] = [];
  for (const pk of mentionedPubkeys(ev.tags)) {
    const agent = pk === ev.pubkey ? undefined : agentByPubkey(project, pk);
    if (agent) out.push(agent);
  }
  return out;
}

function toOrchestrator(ev: NostrEvent, project: ProjectInfo, addressed: AgentInfo[], why: string): TriggerDecision {
  const orchestrator = orchestratorOf(project);
  if (!orchestrator) return { action: "record", addressed, reason: `${why}; the project has no orchestrator` };
  // The orchestrator never triggers itself: that would be a loop of one.
  if (orchestrator.pubkey === ev.pubkey) return { action: "record", addressed, reason: `${why}; authored by the orchestrator` };
  return { action: "trigger", agent: orchestrator, addressed, reason: `${why}: orchestrator` };
}

/** In a direct message or discussion the orchestrator is outside of: the agents a message addresses, if any. */
function withoutOrchestrator(ev: NostrEvent, project: ProjectInfo, addressed: AgentInfo[], kind: string): TriggerDecision {
  const orchestrator = orchestratorOf(project)?.pubkey;
  // A completion p-tags the orchestrator to close a routed turn: not an address, there is no turn here.
  const toWhom = isCompletion(ev.tags) ? addressed.filter((a) => a.pubkey !== orchestrator) : addressed;
  const first = toWhom[0];
  if (first) return { action: "trigger", agent: first, addressed: toWhom, reason: `p-tagged agent ${first.slug}` };
  return { action: "record", addressed: toWhom, reason: `${kind} the orchestrator is not part of, addressing no agent: recorded, not executed` };
}

/** Why `ev` may trigger nothing at all (not a conversation event, or not from the project's people), if so. */
export function refusal(ev: NostrEvent, project: ProjectInfo): RejectReason | undefined {
  if (!isConversationKind(ev.kind)) return "not_a_conversation_event";
  if (!isAuthorised(project, ev.pubkey)) return "not_authorised";
  return undefined;
}

/** `participation`: the conversation's (its root's), when known; a user's conversation by default. */
export function decideTrigger(ev: NostrEvent, project: ProjectInfo, participation: Participation = TEAM): TriggerDecision {
  const refused = refusal(ev, project);
  if (refused) return { action: "reject", reason: refused };

  const addressed = addressedAgents(ev, project);
  const orchestrator = orchestratorOf(project);
  if (orchestrator && excludesOrchestrator(participation, orchestrator.pubkey)) {
    return withoutOrchestrator(ev, project, addressed, participation.kind === "direct" ? "direct message" : "discussion");
  }
  const first = addressed[0];
  if (first) return { action: "trigger", agent: first, addressed, reason: `p-tagged agent ${first.slug}` };
  if (isRootEvent(ev)) return toOrchestrator(ev, project, addressed, "new conversation addressing no agent");
  if (agentByPubkey(project, ev.pubkey)) {
    return { action: "record", addressed, reason: "agent reply addressing no other agent: recorded, not executed" };
  }
  return toOrchestrator(ev, project, addressed, "reply addressing no agent");
}
