// Which conversation an inbound event belongs to: a root is its own conversation; a reply
// names its root with the NIP-22 uppercase `E` tag.

import { startsConversation, KIND } from "../../src/kinds.js";
import { rootEventId } from "../../src/tags.js";
import type { NostrEvent } from "../../src/types.js";
import { isHex64 } from "../../src/types.js";

export function conversationIdOf(ev: NostrEvent): string | undefined {
  if (startsConversation(ev.kind)) return ev.id;
  if (ev.kind !== KIND.REPLY) return undefined;
  const root = rootEventId(ev.tags);
  return isHex64(root) ? root : undefined;
}
