// Which conversation an inbound event belongs to: a root is its own conversation; a NIP-22
// reply names its root with the uppercase `E` tag; a kind 1 names it with its NIP-10 `e` tags,
// or names none and is a root (src/dialect.ts).

import { noteConversationId } from "./dialect.js";
import { startsConversation, KIND } from "./kinds.js";
import { rootEventId } from "./tags.js";
import type { NostrEvent } from "./types.js";
import { isHex64 } from "./types.js";

export function conversationIdOf(ev: NostrEvent): string | undefined {
  if (startsConversation(ev.kind)) return ev.id;
  if (ev.kind === KIND.TEXT_NOTE) return noteConversationId(ev);
  if (ev.kind !== KIND.REPLY) return undefined;
  const root = rootEventId(ev.tags);
  return isHex64(root) ? root : undefined;
}

/** Whether `ev` starts a conversation (its id is the conversation's), in either dialect. */
export const isRootEvent = (ev: NostrEvent): boolean => conversationIdOf(ev) === ev.id;
