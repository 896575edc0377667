// Where an inbound event belongs, from its tags and what the daemon holds: its conversation, and
// whether that is this project's. An event tagged with another project's coordinate is not
// ours; one with no project tag is ours only through a conversation we already hold (a reply
// written by NDK's reply() does not carry the `a` tag over).

import { conversationIdOf } from "../conversation-of.js";
import { projectOf } from "../coordinate.js";
import { KIND } from "../kinds.js";
import type { NostrEvent } from "../types.js";

export type Placement =
  | { is: "ours"; conversationId: string }
  | { is: "other_project" }
  /** No project tag and a conversation not held (yet: its root may still be on its way). */
  | { is: "unplaced"; conversationId: string; root: boolean }
  | { is: "no_root" };

export function placeEvent(ev: NostrEvent, coordinate: string, holds: (conversationId: string) => boolean): Placement {
  const conversationId = conversationIdOf(ev);
  if (!conversationId) return { is: "no_root" };
  const coord = projectOf(ev.tags);
  if (coord !== undefined) return coord === coordinate ? { is: "ours", conversationId } : { is: "other_project" };
  if (holds(conversationId)) return { is: "ours", conversationId };
  return { is: "unplaced", conversationId, root: conversationId === ev.id };
}

/**
 * Kind 1 is every public note on every relay: one that names neither this project nor a
 * conversation held here is dropped on its tags, before its signature is paid for. (Conversation
 * kinds of the NIP-22 dialect are placed after it, as before: they are ours or junk.)
 */
export const placedBeforeSignature = (kind: number): boolean => kind === KIND.TEXT_NOTE;
