// The events an event answers: what it must never be shown before. One reader for both
// dialects a conversation is written in (DESIGN.md §2):
// - NIP-22 (kind 1111, the web client and NDK `reply()`): `E` is the root, the first `e` the
//   parent. NDK writes the parent before the root (`e`, `E`, `K`, `P`, `k`): tag order says
//   nothing here, the tag name does.
// - NIP-10 (kind 1, TENEX's current backend): `e` tags marked `root` and `reply`. NDK's
//   `reply()` copies the parent's marked tags, so one event can carry several `reply` marks
//   (its grandparent's and its parent's): every marked one is an ancestor, the last `reply` is
//   the parent. Without any marker (the deprecated positional form) the first `e` is the root
//   and the last the parent; those in between are mentions, not ancestors.
// `mention`-marked and unmarked `e` tags next to marked ones (TENEX's agent-definition tag) are
// references to other things, not places in the thread.

import type { NostrEvent } from "./types.js";

type Tags = readonly (readonly string[])[];

export interface EventReferences {
  /** The thread's root, when the event names one. */
  root?: string;
  /** The event it replies to, when it names one (the root itself for a first-level reply). */
  parent?: string;
  /** Every event it answers, root first, each once, never the event itself. */
  ancestors: readonly string[];
}

const NIP10_MARKERS = new Set(["root", "reply", "mention"]);
const NONE: EventReferences = { ancestors: [] };

const hasValue = (t: readonly string[]): t is readonly [string, string, ...string[]] =>
  typeof t[1] === "string" && t[1] !== "";

function nip22(tags: Tags): { root?: string; parent?: string } {
  let root: string | undefined;
  let parent: string | undefined;
  for (const t of tags) {
    if (!hasValue(t)) continue;
    if (t[0] === "E" && root === undefined) root = t[1];
    else if (t[0] === "e" && parent === undefined) parent = t[1];
  }
  return { ...(root !== undefined ? { root } : {}), ...(parent !== undefined ? { parent } : {}) };
}

function nip10(tags: Tags): { root?: string; parent?: string; between: string[] } {
  const eTags = tags.filter(hasValue).filter((t) => t[0] === "e");
  const marked = eTags.some((t) => NIP10_MARKERS.has(t[3] ?? ""));
  if (!marked) {
    // Positional: first = root, last = the event replied to; one tag is both.
    const first = eTags[0]?.[1];
    const last = eTags.at(-1)?.[1];
    return { ...(first !== undefined ? { root: first } : {}), ...(last !== undefined ? { parent: last } : {}), between: [] };
  }
  let root: string | undefined;
  const replies: string[] = [];
  for (const t of eTags) {
    if (t[3] === "root" && root === undefined) root = t[1];
    else if (t[3] === "reply") replies.push(t[1]);
  }
  // A first-level reply carries only the root mark: the root is also what it answers.
  const parent = replies.at(-1) ?? root;
  return { ...(root !== undefined ? { root } : {}), ...(parent !== undefined ? { parent } : {}), between: replies.slice(0, -1) };
}

/** What `ev` answers, read from its tags (see the file comment for the two dialects). */
export function referencesOf(ev: Pick<NostrEvent, "id" | "kind" | "tags">): EventReferences {
  const tags = ev.tags;
  const upper = ev.kind === 1111 || tags.some((t) => t[0] === "E");
  const found = upper ? { ...nip22(tags), between: [] as string[] } : nip10(tags);
  if (found.root === undefined && found.parent === undefined) return NONE;
  const ancestors: string[] = [];
  for (const id of [found.root, ...found.between, found.parent]) {
    if (id !== undefined && id !== ev.id && !ancestors.includes(id)) ancestors.push(id);
  }
  return {
    ...(found.root !== undefined && found.root !== ev.id ? { root: found.root } : {}),
    ...(found.parent !== undefined && found.parent !== ev.id ? { parent: found.parent } : {}),
    ancestors,
  };
}
