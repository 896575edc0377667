// Who takes part in a conversation, read from its root. A user's conversation is the team's:
// the orchestrator routes it. A direct message (an agent's root addressed to agents, `tenexd
// send`) and a discussion (a root with a `scope` tag, `tenexd discuss`) belong to their
// parties: the author, the agents it addresses and, for a discussion, the agents of its scope.
// The orchestrator takes part in those only as a party or when a message addresses it; a
// completion's p-tag of the orchestrator is the protocol's way to close a routed turn, and
// such a conversation has no turn to close.

import { scopeOf, mentionedPubkeys } from "../tags.js";
import type { NostrEvent, ProjectInfo } from "../types.js";
import { scopeRecipients } from "./scope.js";

export type Participation =
  | { kind: "team" }
  | { kind: "direct" | "discussion"; parties: ReadonlySet<string> };

export const TEAM: Participation = { kind: "team" };

/** The conversation's participation, from its root (a conversation whose root is missing is the team's). */
export function participationOf(root: NostrEvent | undefined, project: ProjectInfo): Participation {
  if (!root) return TEAM;
  const scope = scopeOf(root.tags);
  const addressed = mentionedPubkeys(root.tags);
  if (scope) {
    return { kind: "discussion", parties: new Set([root.pubkey, ...addressed, ...scopeRecipients(scope, project.agents, root.pubkey)]) };
  }
  if (project.agents.some((a) => a.pubkey === root.pubkey)) return { kind: "direct", parties: new Set([root.pubkey, ...addressed]) };
  return TEAM;
}

/** Whether the orchestrator stays out of the conversation unless a message addresses it. */
export const excludesOrchestrator = (p: Participation, orchestrator: string): boolean =>
  p.kind !== "team" && !p.parties.has(orchestrator);
