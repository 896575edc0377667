// What an accepted inbound event does to its conversation: the event itself with what it
// completes and the status it sets (its author's cursor moves with it, in the fold:
// agent-seen.ts). Who it sets to work is decided next, with the event in place (runs.ts).

import type { Conversation } from "./conversation-state.js";
import { decideAddEvent, decideClose, decideReopen } from "./conversation.js";
import type { NewRecord } from "./records.js";
import { isCompletion, statusOf } from "./tags.js";
import { decideCompletion } from "./turns.js";
import type { NostrEvent } from "./types.js";

/** The event's records, or none when the conversation already holds it. */
export function decideInbound(conv: Conversation | undefined, ev: NostrEvent, origin: "relay" | "local", now: number): NewRecord[] {
  const records: NewRecord[] = decideAddEvent(conv, ev, origin, now);
  if (records.length === 0 || !conv) return records;
  if (isCompletion(ev.tags)) {
    records.push(...decideCompletion(conv.turns, { eventId: ev.id, agent: ev.pubkey, message: ev.content }, now));
  }
  // `["status","closed|open"]` closes or reopens the conversation (the author is authorised).
  const status = statusOf(ev.tags);
  if (status) {
    const change = { by: ev.pubkey, reason: `status tag on ${ev.id}` };
    records.push(...(status === "closed" ? decideClose(conv, change, now) : decideReopen(conv, change, now)));
  }
  return records;
}
