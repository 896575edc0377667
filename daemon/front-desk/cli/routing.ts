// `tenexd routing`: what the orchestrator reads before routing a conversation: the request, the
// turns that ran and how they ended, the open one, and any sign of looping.

import type { RoutingEntry } from "../../../src/routing-context.js";
import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { formatTable } from "../../cli/table.js";
import { cli } from "../../cli/support/errors.js";
import { clip } from "../../cli/support/format.js";
import { need } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { openReads } from "./support/sources.js";

export const routing: Command = {
  name: "routing",
  usage: `Usage: tenexd routing [--project DIR] [--json] -c CONVERSATION

Prints the routing context the orchestrator is given ({user_request, routing_history,
current_routing}, agents by slug) and the problems detected: the same routing repeated turn
after turn, or turns that make no progress (limits.repeatRoutingThreshold, limits.stallThreshold).

  -c, --conversation REF   The conversation (alias, id or hex prefix)`,
  options: { conversation: { type: "string", short: "c" } },
  async run(ctx) {
    const conversation = need(ctx, "conversation", "the conversation (CONV-0001, an id or a hex prefix)");
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        const r = await src.api.routing(conversation);
        emit(ctx, src.source, r, () => {
          const turns = [...r.routing.routing_history, ...(r.routing.current_routing ? [r.routing.current_routing] : [])];
          const row = (t: RoutingEntry) => [String(t.turn), t.phase, t.agents.join(","), t.status, String(t.completions.length), clip(t.reason, 60)];
          const problems = [
            r.problems.repeatedRouting ? `the same routing (${r.problems.repeatedRouting.phase} → ${r.problems.repeatedRouting.agents.join(", ")}) ${r.problems.repeatedRouting.count} times in a row` : "",
            r.problems.stalled ? `${r.problems.stalled.turnsWithoutProgress} turns in a row without progress` : "",
          ].filter(Boolean);
          return `${r.alias}  phase ${r.phase}\nRequest: ${clip(r.routing.user_request, 200)}\n\n`
            + (turns.length > 0 ? formatTable(["TURN", "PHASE", "AGENTS", "STATUS", "DONE", "REASON"], turns.map(row)) : "No turns yet.\n")
            + `Problems: ${problems.length > 0 ? problems.join("; ") : "none"}\n`;
        });
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};
