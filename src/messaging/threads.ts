// Threads of a conversation: replies nest under their parent (references.ts) to any depth.
// Output is depth-first (each reply right after its parent's subtree starts), siblings in the
// order they are given in: the conversation's order (event-order.ts), so a thread and the
// conversation never disagree about which of two messages came first. A reply whose parent is
// not in the conversation (not fetched yet, or malformed) hangs off the root rather than
// vanishing.

import { referencesOf } from "../references.js";
import type { NostrEvent } from "../types.js";

export interface ThreadEntry {
  ev: NostrEvent;
  /** 0 for the root, 1 for a direct reply to it, and so on. */
  depth: number;
  /** Parent it is shown under (undefined for the root). */
  parentId?: string;
}

function childrenByParent(events: readonly NostrEvent[], rootId: string): Map<string, NostrEvent[]> {
  // By id, so an event given twice (relays repeat themselves) is shown once.
  const members = new Map<string, NostrEvent>();
  for (const ev of events) if (ev.id !== rootId && referencesOf(ev).root === rootId) members.set(ev.id, ev);
  const children = new Map<string, NostrEvent[]>();
  for (const ev of members.values()) {
    const p = referencesOf(ev).parent;
    const parent = p !== undefined && members.has(p) ? p : rootId;
    const list = children.get(parent);
    if (list) list.push(ev);
    else children.set(parent, [ev]);
  }
  return children;
}

/** The thread of `events`, given in conversation order. */
export function threadOf(events: readonly NostrEvent[], rootId: string): ThreadEntry[] {
  const children = childrenByParent(events, rootId);
  const root = events.find((ev) => ev.id === rootId);
  const out: ThreadEntry[] = root ? [{ ev: root, depth: 0 }] : [];
  // An explicit stack: a long chain of replies to replies must not overflow the call stack.
  const stack: ThreadEntry[] = [];
  const pushChildren = (parentId: string, depth: number) => {
    const list = children.get(parentId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) stack.push({ ev: list[i]!, depth, parentId });
  };
  pushChildren(rootId, 1);
  // Each event has one parent, so from the root this walks a tree: no event is visited twice.
  // (A parent cycle is impossible with valid ids: an id commits to the tags naming the parent.)
  while (stack.length > 0) {
    const entry = stack.pop()!;
    out.push(entry);
    pushChildren(entry.ev.id, entry.depth + 1);
  }
  return out;
}
