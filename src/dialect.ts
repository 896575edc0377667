// The two dialects TENEX clients write a conversation in (docs/contract.md):
// - nip22: kind 11 roots and kind 1111 replies (`E`/`K`/`P` the root, `e`/`k`/`p` the parent),
//   what the web client writes;
// - kind1: kind 1 notes with NIP-10 `e` tags, what TENEX's backend, TUI and apps write since
//   early 2026. A root is a kind 1 with the project's `a` tag and no thread `e` tag; a reply
//   names its root with an `e` marked `root` (or, in the positional form older clients send,
//   its first unmarked `e`).
// Both are read into the same conversations (the conversation id is the root's event id either
// way); an agent answers in the dialect of the message that set it to work, unless the project
// configures one.

import type { NostrEvent } from "./types.js";

export type Dialect = "nip22" | "kind1";
export const DIALECT_SETTINGS = ["auto", "nip22", "kind1"] as const;
export type DialectSetting = (typeof DIALECT_SETTINGS)[number];

/**
 * The conversation a kind 1 belongs to, as TENEX's own reader has it
 * (tenex-protocol event_filter.rs): the `e` marked `root`, else the first unmarked `e`, else
 * the note itself (it starts one). `reply`- and `mention`-marked tags never name the root.
 */
export function noteConversationId(ev: Pick<NostrEvent, "id" | "tags">): string {
  let firstUnmarked: string | undefined;
  for (const t of ev.tags) {
    if (t[0] !== "e" || typeof t[1] !== "string" || t[1] === "") continue;
    const mark = t[3];
    if (mark === "root") return t[1];
    if ((mark === undefined || mark === "") && firstUnmarked === undefined) firstUnmarked = t[1];
  }
  return firstUnmarked ?? ev.id;
}

/** The dialect an event is written in. */
export const dialectOf = (ev: Pick<NostrEvent, "kind">): Dialect => (ev.kind === 1 ? "kind1" : "nip22");

/** The dialect an agent answers `trigger` in: the project's choice, else the trigger's own. */
export const replyDialect = (setting: DialectSetting | undefined, trigger: Pick<NostrEvent, "kind">): Dialect =>
  setting === undefined || setting === "auto" ? dialectOf(trigger) : setting;
