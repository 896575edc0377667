// The events an event answers: what it must never be shown before. One reader for both
// dialects a conversation is written in (docs/contract.md):
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

export interface EventReferences {
  /** The thread's root, when the event names one. */
  root?: string;
  /** The event it replies to, when it names one (the root itself for a first-level reply). */
  parent?: string;
  /** Every event it answers, root first, each once, never the event itself. */
  ancestors: readonly string[];
}

const NONE: EventReferences = { ancestors: [] };

/**
 * What `ev` answers, read from its tags (see the file comment for the two dialects). One pass
 * over the tags, no copies: it runs on every event taken in.
 */
export function referencesOf(ev: Pick<NostrEvent, "id" | "kind" | "tags">): EventReferences {
  let upperRoot: string | undefined;
  let firstE: string | undefined;
  let lastE: string | undefined;
  let markedRoot: string | undefined;
  let replies: string[] | undefined;
  let marked = false;
  for (const t of ev.tags) {
    const v = t[1];
    if (typeof v !== "string" || v === "") continue;
    if (t[0] === "E") {
      if (upperRoot === undefined) upperRoot = v;
    } else if (t[0] === "e") {
      if (firstE === undefined) firstE = v;
      lastE = v;
      const mark = t[3];
      if (mark === "root") {
        marked = true;
        if (markedRoot === undefined) markedRoot = v;
      } else if (mark === "reply") {
        marked = true;
        (replies ??= []).push(v);
      } else if (mark === "mention") {
        marked = true;
      }
    }
  }
  let root: string | undefined;
  let parent: string | undefined;
  let between: readonly string[] = [];
  if (ev.kind === 1111 || upperRoot !== undefined) {
    root = upperRoot;
    parent = firstE;
  } else if (marked) {
    // A first-level reply carries only the root mark: the root is also what it answers.
    root = markedRoot;
    parent = replies?.at(-1) ?? markedRoot;
    if (replies && replies.length > 1) between = replies.slice(0, -1);
  } else {
    // Positional: first = root, last = the event replied to; one tag is both.
    root = firstE;
    parent = lastE;
  }
  if (root === ev.id) root = undefined;
  if (parent === ev.id) parent = undefined;
  if (root === undefined && parent === undefined) return NONE;
  const ancestors: string[] = root !== undefined ? [root] : [];
  for (const id of between) if (id !== ev.id && !ancestors.includes(id)) ancestors.push(id);
  if (parent !== undefined && !ancestors.includes(parent)) ancestors.push(parent);
  const out: EventReferences = { ancestors };
  if (root !== undefined) out.root = root;
  if (parent !== undefined) out.parent = parent;
  return out;
}
