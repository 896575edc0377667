// Conversation search criteria, evaluated on the in-memory aggregate.

import type { Conversation } from "./conversation-state.js";
import type { Phase } from "./types.js";

export interface SearchCriteria {
  /** Case-insensitive substring of the title. */
  title?: string;
  phase?: Phase;
  /** Inclusive bounds on the conversation's createdAt (unix seconds). */
  from?: number;
  to?: number;
  archived?: boolean;
  /** Pubkey that authored at least one event. */
  participant?: string;
}

/** True when the conversation meets every criterion given (none given: every conversation). */
export function matchesCriteria(conv: Conversation, c: SearchCriteria): boolean {
  if (c.title !== undefined && !conv.title.toLowerCase().includes(c.title.toLowerCase())) return false;
  if (c.phase !== undefined && conv.phase.phase !== c.phase) return false;
  if (c.from !== undefined && conv.createdAt < c.from) return false;
  if (c.to !== undefined && conv.createdAt > c.to) return false;
  if (c.archived !== undefined && conv.archived !== c.archived) return false;
  if (c.participant !== undefined && !conv.participants.has(c.participant)) return false;
  return true;
}
