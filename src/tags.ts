// Tag readers. Each returns undefined (or []) for a missing or malformed tag: shape checks
// with clear rejections happen at the edge (src/edge/validate-inbound.ts); here we only read.

import type { MessageType, Phase, Priority } from "./types.js";
import { MESSAGE_TYPES, PHASES, PRIORITIES } from "./types.js";

type Tags = readonly string[][];

/** Value of the first tag named `name`. Tag names are case-sensitive (`E` ≠ `e`, NIP-22). */
export function tagValue(tags: Tags, name: string): string | undefined {
  for (const t of tags) if (t[0] === name && typeof t[1] === "string") return t[1];
  return undefined;
}

/** Values of every tag named `name`, in order, without duplicates. */
export function tagValues(tags: Tags, name: string): string[] {
  const out: string[] = [];
  for (const t of tags) {
    if (t[0] === name && typeof t[1] === "string" && !out.includes(t[1])) out.push(t[1]);
  }
  return out;
}

const oneOf = <T extends string>(allowed: readonly T[], v: string | undefined): T | undefined =>
  v !== undefined && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;

/** NIP-22 root scope: `E` (root event id), `K` (root kind), `P` (root author). */
export const rootEventId = (tags: Tags) => tagValue(tags, "E");
export const rootKind = (tags: Tags) => {
  const k = tagValue(tags, "K");
  return k !== undefined && /^\d+$/.test(k) ? Number(k) : undefined;
};
export const rootAuthor = (tags: Tags) => tagValue(tags, "P");
/** NIP-22 parent: `e`, `k`, `p`. */
export const parentEventId = (tags: Tags) => tagValue(tags, "e");
export const parentKind = (tags: Tags) => {
  const k = tagValue(tags, "k");
  return k !== undefined && /^\d+$/.test(k) ? Number(k) : undefined;
};
/** Every lowercase `p` tag, in order: the addressed pubkeys. */
export const mentionedPubkeys = (tags: Tags) => tagValues(tags, "p");

export const titleOf = (tags: Tags) => tagValue(tags, "title");
export const phaseOf = (tags: Tags): Phase | undefined => oneOf(PHASES, tagValue(tags, "phase"));
export const toolOf = (tags: Tags) => tagValue(tags, "tool");
/**
 * A completion: `["tool","complete"]` (tenexd's agents, both dialects), or today's TENEX kind 1
 * completion `["status","completed"]` (the edge allows that value on kind 1 only).
 */
export const isCompletion = (tags: Tags) => toolOf(tags) === "complete" || tagValue(tags, "status") === "completed";
export const claudeSessionOf = (tags: Tags) => tagValue(tags, "claude-session");
export const triggeringEventOf = (tags: Tags) => tagValue(tags, "triggering-event-id");
export const priorityOf = (tags: Tags): Priority | undefined => oneOf(PRIORITIES, tagValue(tags, "priority"));
export const messageTypeOf = (tags: Tags): MessageType | undefined => oneOf(MESSAGE_TYPES, tagValue(tags, "type"));
export const statusOf = (tags: Tags): "open" | "closed" | undefined =>
  oneOf(["open", "closed"] as const, tagValue(tags, "status"));

/** Discussion scope: `["scope","role",<role>]` or `["scope","all"]`. */
export type Scope = { kind: "all" } | { kind: "role"; role: string };
export function scopeOf(tags: Tags): Scope | undefined {
  for (const t of tags) {
    if (t[0] !== "scope") continue;
    if (t[1] === "all") return { kind: "all" };
    if (t[1] === "role" && typeof t[2] === "string" && t[2].length > 0) return { kind: "role", role: t[2] };
  }
  return undefined;
}

/** NIP-40 expiration (unix seconds), when present and numeric. */
export function expirationOf(tags: Tags): number | undefined {
  const v = tagValue(tags, "expiration");
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** `["net-time", secs]`. */
export function netTimeOf(tags: Tags): number | undefined {
  const v = tagValue(tags, "net-time");
  return v !== undefined && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}
