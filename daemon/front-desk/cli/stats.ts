// `tenexd stats`: conversations by phase and status, message volume, unread and response
// times per agent, the most active authors.

import type { StatsView } from "../shapes.js";
import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { formatTable } from "../../cli/table.js";
import { cli } from "../../cli/support/errors.js";
import { fields } from "../../cli/support/format.js";
import { emit } from "../../cli/support/output.js";
import { openReads } from "./support/sources.js";

export const stats: Command = {
  name: "stats",
  usage: `Usage: tenexd stats [--project DIR] [--json]

From the index: conversations (total, archived, by phase, by status), messages (total, last
hour, last 24 h, last week), per agent its unread count (and whether it is over
limits.unreadThreshold) and how fast it answers what is sent to it (median and mean seconds),
and the ten most active authors.`,
  options: {},
  async run(ctx) {
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        const s = await src.api.stats();
        emit(ctx, src.source, s, () => statsText(s));
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};

const counts = (r: Record<string, number>) => Object.entries(r).map(([k, v]) => `${k} ${v}`).join(", ") || "-";
const secs = (v: number | undefined) => (v === undefined ? "-" : `${Math.round(v)}s`);

function statsText(s: StatsView): string {
  const agents = s.agents.map((a) => [
    a.slug, a.role, String(a.unread) + (a.overThreshold ? " (over)" : ""), String(a.responseTime?.count ?? 0),
    secs(a.responseTime?.median), secs(a.responseTime?.mean),
  ]);
  const top = s.topCommunicators.map((t) => [t.from, String(t.messages)]);
  return fields([
    ["conversations", `${s.conversations.total} (archived ${s.conversations.archived})`],
    ["  by status", counts(s.conversations.byStatus)],
    ["  by phase", counts(s.conversations.byPhase)],
    ["messages", `${s.messages.total}; last hour ${s.messages.lastHour}, last 24 h ${s.messages.last24h}, last week ${s.messages.lastWeek}`],
    ["response time", `median ${secs(s.responseTimes.overall.median)}, mean ${secs(s.responseTimes.overall.mean)} over ${s.responseTimes.overall.count} answers`],
  ]) + `\nAgents (unread threshold ${s.unreadThreshold})\n`
    + formatTable(["AGENT", "ROLE", "UNREAD", "ANSWERS", "MEDIAN", "MEAN"], agents, "  ")
    + `\nTop communicators\n${formatTable(["AUTHOR", "MESSAGES"], top, "  ")}`;
}
