// Who a message is for: its p-tagged pubkeys, plus, in a discussion scoped to a role (or to
// all), every agent of that role. Scope membership is evaluated against the agents as they are
// WHEN ASKED, so an agent that joins later sees the discussion's whole history.

import { mentionedPubkeys, scopeOf, type Scope } from "../tags.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "../types.js";

/** A message as recipient rules need it. */
export interface MessageAddressing {
  author: string;
  pTags: readonly string[];
  /** Scope of the discussion the message belongs to, if it is one. */
  scope?: Scope;
}

export const inScope = (scope: Scope, agent: AgentInfo): boolean =>
  scope.kind === "all" || agent.role === scope.role;

/** Pubkeys of the agents a scope covers, except the author (nobody is its own recipient). */
export function scopeRecipients(scope: Scope, agents: readonly AgentInfo[], author: string): string[] {
  return agents.filter((a) => a.pubkey !== author && inScope(scope, a)).map((a) => a.pubkey);
}

/** Query-time rule: is `agent` a recipient of `msg`, given the agent's role now. */
export function isRecipient(agent: AgentInfo, msg: MessageAddressing): boolean {
  if (agent.pubkey === msg.author) return false;
  return msg.pTags.includes(agent.pubkey) || (msg.scope !== undefined && inScope(msg.scope, agent));
}

/**
 * Recipients to index for `ev`: p-tags minus the author, then the scope's agents. The scope is
 * the conversation's (replies in a discussion need not repeat the root's scope tag), else the
 * event's own.
 */
export function recipientsOf(ev: NostrEvent, project: ProjectInfo, convScope?: Scope): string[] {
  const out = new Set(mentionedPubkeys(ev.tags).filter((pk) => pk !== ev.pubkey));
  const scope = convScope ?? scopeOf(ev.tags);
  if (scope) for (const pk of scopeRecipients(scope, project.agents, ev.pubkey)) out.add(pk);
  return [...out];
}
