// What the index keeps of one event: a row for `messages` (a preview, not the content: the log
// holds the content) and the recipients it is addressed to.

import type { EventRecord } from "../../src/records.js";
import {
  expirationOf, messageTypeOf, parentEventId, priorityOf,
} from "../../src/tags.js";
import type { Priority } from "../../src/types.js";

export const PREVIEW_CHARS = 160;

/** Sort order of priorities: critical first, no priority ranks as medium. */
export const PRIORITY_RANK: Readonly<Record<Priority, number>> = { critical: 0, high: 1, medium: 2, low: 3 };
const NO_PRIORITY_RANK = PRIORITY_RANK.medium;

export interface MessageRow {
  conversation_id: string;
  n: number;
  event_id: string;
  received_at: number;
  author: string;
  kind: number;
  type: string | null;
  priority: string | null;
  priority_rank: number;
  created_at: number;
  expiration: number | null;
  parent_id: string | null;
  preview: string;
  size: number;
}

export function messageRow(conversationId: string, rec: EventRecord): MessageRow {
  const { ev } = rec;
  const priority = priorityOf(ev.tags);
  return {
    conversation_id: conversationId,
    n: rec.n,
    event_id: ev.id,
    received_at: rec.at,
    author: ev.pubkey,
    kind: ev.kind,
    type: messageTypeOf(ev.tags) ?? null,
    priority: priority ?? null,
    priority_rank: priority !== undefined ? PRIORITY_RANK[priority] : NO_PRIORITY_RANK,
    created_at: ev.created_at,
    expiration: expirationOf(ev.tags) ?? null,
    parent_id: parentEventId(ev.tags) ?? null,
    preview: previewOf(ev.content),
    size: Buffer.byteLength(ev.content, "utf8"),
  };
}

/**
 * The first PREVIEW_CHARS code points, so an emoji is never split. Counted in place: spreading
 * the string into an array of code points cost more than the message's insert.
 */
export function previewOf(content: string): string {
  if (content.length <= PREVIEW_CHARS) return content;
  let end = 0;
  for (let points = 0; points < PREVIEW_CHARS && end < content.length; points++) {
    const unit = content.charCodeAt(end);
    // A high surrogate followed by a low one is one code point; a lone surrogate is one alone.
    const pair = unit >= 0xd800 && unit <= 0xdbff && (content.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    end += pair ? 2 : 1;
  }
  return content.slice(0, end);
}
