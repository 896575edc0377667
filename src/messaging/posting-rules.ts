// What a message an agent posts through the API gets unless it says otherwise: its recipients
// (the author of what it answers) and its NIP-40 expiration, checked against its own time.

import type { Conversation } from "../conversation-state.js";
import { DomainError } from "../errors.js";
import type { NostrEvent, UnsignedEvent } from "../types.js";

/** Who a reply goes to by default: the author of what it answers (the root when it names no parent). */
export function defaultRecipients(conv: Conversation, self: string, parent: NostrEvent | undefined): string[] {
  const about = parent ?? conv.eventsById.get(conv.id)?.ev;
  if (!about) return [];
  if (about.pubkey !== self) return [about.pubkey];
  // Replying to oneself: address whoever that message addressed (the other side of a 1-on-1).
  return about.tags.filter((t) => t[0] === "p" && t[1] !== undefined && t[1] !== self).map((t) => t[1]!);
}

/** `ev` with its expiration tag; DomainError unless `expiresAt` is whole seconds after the event's time. */
export function withExpiration(ev: UnsignedEvent, expiresAt: number | undefined): UnsignedEvent {
  if (expiresAt === undefined) return ev;
  if (!Number.isInteger(expiresAt) || expiresAt <= ev.created_at) {
    throw new DomainError(`expiresAt ${expiresAt} must be whole unix seconds after now (${ev.created_at})`, "bad_expiration");
  }
  return { ...ev, tags: [...ev.tags, ["expiration", String(expiresAt)]] };
}
