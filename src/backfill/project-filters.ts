// What the daemon asks relays for, live and in back-fills (docs/contract.md, docs/architecture.md): the project's
// conversation events, by the only people whose events it can accept. Every conversation event
// passes decideTrigger (src/routing.ts), which rejects any author other than the owner, a
// whitelisted user or a project agent, so naming those authors in every filter loses nothing the
// daemon would take in, and a stranger's events, however many, are never sent to it at all
// (a flood of them in one second used to fill the back-fill's pages).

import { KIND } from "../kinds.js";
import type { RelayFilter } from "../ports.js";
import type { ProjectInfo } from "../types.js";

export const CONVERSATION_KINDS: readonly number[] = [KIND.CONVERSATION_ROOT, KIND.REPLY, KIND.TASK, KIND.TEXT_NOTE];

export interface ProjectAudience {
  coordinate: string;
  /** The project's agents: replies p-tagging them are ours even without an `a` tag. */
  agents: readonly string[];
  /** Owner and whitelisted users: replies in threads they rooted (uppercase P) may be ours. */
  users: readonly string[];
}

/** A project's audience as its info names it: its agents, and the owner and whitelisted users. */
export function audienceOf(info: ProjectInfo): ProjectAudience {
  return { coordinate: info.coordinate, agents: info.agents.map((a) => a.pubkey), users: info.whitelist };
}

/** Everyone who can author an event the daemon accepts, each once. */
export function authorsOf(a: ProjectAudience): string[] {
  return [...new Set([...a.users, ...a.agents])];
}

/**
 * Events tagged with the project, plus replies that name an agent or sit in a thread one of our
 * users rooted: NDK's reply() does not carry the `a` tag over. What is not in a known
 * conversation is ignored by the inbound checks (a kind 1 before its signature is checked).
 *
 * Kind 1 has no uppercase `P` (the root's author): NIP-10's reply p-tags the parent's author and
 * every pubkey the parent p-tagged, so a reply to an agent's message names the agent, and a reply
 * to a user's message names that user. `#p` of the agents and of the users is its equivalent.
 * (`#e` of the conversations held would catch a reply that names neither, e.g. a user answering
 * only themselves without the `a` tag, but it grows with the history: docs/contract.md.)
 */
export function projectFilters(a: ProjectAudience): RelayFilter[] {
  const authors = authorsOf(a);
  return [
    { kinds: [...CONVERSATION_KINDS], "#a": [a.coordinate], authors },
    { kinds: [KIND.REPLY, KIND.TEXT_NOTE], "#p": [...a.agents], authors },
    { kinds: [KIND.REPLY], "#P": [...a.users], authors },
    { kinds: [KIND.TEXT_NOTE], "#p": [...a.users], authors },
  ];
}

/**
 * Stop requests (kind 24134) for the project's agents from its people, as TENEX asks for them
 * (authors: the owner and whitelisted users; `#p`: the agents). Live only: they are ephemeral.
 */
export function stopFilter(a: ProjectAudience): RelayFilter {
  return { kinds: [KIND.STOP], authors: [...a.users], "#p": [...a.agents] };
}
