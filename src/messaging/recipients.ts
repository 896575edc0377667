// Who a message is for, as the index stores it (its unread and awaiting-reply rows): its
// p-tagged pubkeys and, in a discussion scoped to a role or to all, the project's agents of that
// scope (the scope of the root applies to every reply in the conversation; scope.ts). Each
// lowercase and once, never the author: no one is unread to itself.

import type { Conversation } from "../conversation-state.js";
import { mentionedPubkeys, scopeOf } from "../tags.js";
import type { NostrEvent, ProjectInfo } from "../types.js";
import { recipientsOf } from "./scope.js";

/** Who `ev` is addressed to in `conv`, before the author is taken out (indexedRecipients does). */
export type RecipientsOf = (ev: NostrEvent, conv: Conversation) => string[];

/** The event's `p` tags: the rule of an index that knows no project. */
export const pTagRecipients: RecipientsOf = (ev) => mentionedPubkeys(ev.tags);

/** The project's rule: p-tags, then the agents of the conversation's scope. */
export function projectRecipients(project: ProjectInfo): RecipientsOf {
  return (ev, conv) => {
    const root = conv.eventsById.get(conv.id)?.ev;
    return recipientsOf(ev, project, root ? scopeOf(root.tags) : undefined);
  };
}

/** Distinct recipients, lowercase-normalised, never the author (no one is unread to itself). */
export function indexedRecipients(ev: NostrEvent, conv: Conversation, rule: RecipientsOf): string[] {
  const all = rule(ev, conv);
  // Taken for every message: a short list is kept distinct by looking, a long one by a Set.
  if (all.length > SHORT_LIST) return [...new Set(all.map((p) => p.toLowerCase()))].filter((p) => p !== ev.pubkey);
  const out: string[] = [];
  for (const p of all) {
    const key = p.toLowerCase();
    if (key !== ev.pubkey && !out.includes(key)) out.push(key);
  }
  return out;
}

const SHORT_LIST = 16;
