// One agent as the dashboard's Agents page shows it: its unread inbox by priority, its runs
// (under way, the last one) and how fast it answers. Built from plain data the front desk read.

import type { ActiveRun, FinishedRun } from "../daemon-status.js";
import type { Summary } from "../read-model.js";
import { priorityRank } from "../messaging/priority.js";
import { PRIORITIES, type Priority } from "../types.js";

export interface AgentOverview {
  slug: string;
  role: string;
  backend: string;
  unread: number;
  overThreshold: boolean;
  /** Unread messages by priority (none given counts as medium). */
  byPriority: Record<Priority, number>;
  running: ActiveRun[];
  lastRun: FinishedRun | null;
  responseTime: Summary | null;
}

/** Counts by priority rank (src/messaging/priority.ts: `priorityRank`) as counts by priority. */
export function byPriority(byRank: readonly number[]): Record<Priority, number> {
  return Object.fromEntries(PRIORITIES.map((p) => [p, byRank[priorityRank(p)] ?? 0])) as Record<Priority, number>;
}
