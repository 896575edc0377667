// A conversation folded as the daemon folds it (decide, stamp, apply), for tests that need
// events in conversation order or a conversation built from events in a given arrival order.

import { decideAddEvent, stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { NewRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";

export function commitTo(conv: Conversation, records: readonly NewRecord[]): void {
  for (const r of stamp(conv, records)) applyRecord(conv, r);
}

/** A conversation holding `arrivals`, taken in in that order (duplicates dropped). */
export function conversationOf(id: string, arrivals: readonly NostrEvent[], project = ""): Conversation {
  const conv = emptyConversation(id, project);
  for (const ev of arrivals) commitTo(conv, decideAddEvent(conv, ev, "relay", 0));
  return conv;
}

/** `arrivals` (received in that order) as the conversation `id` orders them. */
export const inConversationOrder = (id: string, arrivals: readonly NostrEvent[]): NostrEvent[] =>
  conversationOf(id, arrivals).events.map((e) => e.ev);
