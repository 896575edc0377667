// Which conversation an inbound event belongs to: a root is its own conversation; a reply
// names its root with the NIP-22 uppercase `E` tag.

import { startsConversation, KIND } from "./kinds.js";
import { rootEventId } from "./tags.js";
import type { NostrEvent } from "./types.js";
import { isHex64 } from "./types.js";

export function conversationIdOf(ev: NostrEvent): string | undefined {
  if (startsConversation(ev.kind)) return ev.id;
  if (ev.kind !== KIND.REPLY) return undefined;
  const root = rootEventId(ev.tags);
  return isHex64(root) ? root : undefined;
}
