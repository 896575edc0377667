// One agent as the dashboard's Agents page shows it: its unread inbox by priority, its runs
// (under way, the last one) and how fast it answers. Built from plain data the front desk read.

import type { ActiveRun, FinishedRun } from "../daemon-status.js";
import type { Summary } from "../read-model.js";
import { PRIORITIES, type Priority } from "../types.js";

export interface AgentOverview {
  slug: string;
  role: string;
  backend: string;
  unread: number;
  overThreshold: boolean;
  /** Unread messages by priority (none given counts as medium), over the first `counted` of the inbox. */
  byPriority: Record<Priority, number>;
  counted: number;
  running: ActiveRun[];
  lastRun: FinishedRun | null;
  responseTime: Summary | null;
}

export function countByPriority(items: readonly { priority: string | null }[]): Record<Priority, number> {
  const out = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<Priority, number>;
  for (const { priority } of items) {
    const p = (PRIORITIES as readonly string[]).includes(priority ?? "") ? (priority as Priority) : "medium";
    out[p]++;
  }
  return out;
}
