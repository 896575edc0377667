// The message an agent answers when a read or an output names no trigger: the newest one addressed
// to it (a p-tag, or the scope of its discussion), else the newest one by someone else.

import type { Conversation, StoredEvent } from "./conversation-state.js";
import { isRecipient } from "./messaging/scope.js";
import { mentionedPubkeys, scopeOf } from "./tags.js";
import type { AgentInfo, NostrEvent } from "./types.js";

/** The newest message addressed to the agent (p-tag or the discussion's scope), else the newest message by someone else. */
export function defaultTrigger(conv: Conversation, agent: AgentInfo): NostrEvent | undefined {
  const root = conv.eventsById.get(conv.id)?.ev;
  const scope = root ? scopeOf(root.tags) : undefined;
  // Latest by arrival (log position): messages of one second have no order by created_at.
  let addressed: StoredEvent | undefined;
  let fallback: StoredEvent | undefined;
  for (const stored of conv.events) {
    const ev = stored.ev;
    if (ev.pubkey === agent.pubkey) continue;
    if (!fallback || stored.n > fallback.n) fallback = stored;
    const forAgent = isRecipient(agent, { author: ev.pubkey, pTags: mentionedPubkeys(ev.tags), ...(scope ? { scope } : {}) });
    if (forAgent && (!addressed || stored.n > addressed.n)) addressed = stored;
  }
  return (addressed ?? fallback)?.ev;
}
