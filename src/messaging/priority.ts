// Inbox order: most urgent first, then oldest first (an inbox is a queue), then arrival order,
// so two messages sent in the same second keep the order they came in.

import type { Priority } from "../types.js";

const RANK: Readonly<Record<Priority, number>> = { critical: 0, high: 1, medium: 2, low: 3 };

/** critical 0, high 1, medium (or none: the default) 2, low 3. */
export const priorityRank = (p?: Priority): number => (p === undefined ? RANK.medium : RANK[p]);

export interface InboxItem {
  priority?: Priority;
  /** Unix seconds (the event's created_at). */
  createdAt: number;
  /** Arrival sequence: breaks ties within one second. */
  n: number;
}

export function compareInbox(a: InboxItem, b: InboxItem): number {
  return priorityRank(a.priority) - priorityRank(b.priority) || a.createdAt - b.createdAt || a.n - b.n;
}
