// The root of a conversation as an event reference for NIP-22 tags. The root itself may not
// have arrived yet (a reply can come first): its id, kind and author are then read from the
// trigger's uppercase E/K/P tags, which name it.

import type { EventRef } from "./agent-events/index.js";
import type { Conversation } from "./conversation-state.js";
import { KIND } from "./kinds.js";
import { rootAuthor, rootKind } from "./tags.js";
import type { NostrEvent } from "./types.js";

export function rootRefOf(conv: Conversation, trigger: NostrEvent): EventRef {
  const root = conv.eventsById.get(conv.id)?.ev;
  if (root) return { id: root.id, kind: root.kind, pubkey: root.pubkey };
  return { id: conv.id, kind: conv.rootKind ?? rootKind(trigger.tags) ?? (trigger.kind === KIND.TEXT_NOTE ? KIND.TEXT_NOTE : KIND.CONVERSATION_ROOT), pubkey: rootAuthor(trigger.tags) ?? trigger.pubkey };
}
