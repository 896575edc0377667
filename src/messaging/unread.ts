// Read tracking. Unread means after the agent's read cursor by log position `n`, never by
// created_at: clocks disagree and two messages can share a second, positions never do.

import { expirationOf } from "../tags.js";

/** NIP-40: an event is expired from its expiration timestamp on. */
export const isPastExpiry = (expiresAt: number | undefined, nowSecs: number): boolean =>
  expiresAt !== undefined && nowSecs >= expiresAt;

export const isExpired = (tags: readonly string[][], nowSecs: number): boolean =>
  isPastExpiry(expirationOf(tags), nowSecs);

export interface UnreadCandidate {
  /** Event id (what acks refer to). */
  id: string;
  /** Log position. */
  n: number;
  author: string;
  /** NIP-40 expiration, unix seconds. */
  expiresAt?: number;
}

export function isUnread(
  msg: UnreadCandidate, agent: string, readSeq: number, acked: ReadonlySet<string>, nowSecs: number,
): boolean {
  if (msg.author === agent) return false;
  if (isPastExpiry(msg.expiresAt, nowSecs)) return false;
  if (acked.has(msg.id)) return false;
  return msg.n > readSeq;
}
