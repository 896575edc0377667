// `tenexd conversations`: list and search conversations, newest activity first, by pages.

import type { Command } from "../../cli/command.js";
import { PAGE_DEFAULTS } from "../api/page-defaults.js";
import { EXIT } from "../../cli/errors.js";
import { formatTable } from "../../cli/table.js";
import { cli } from "../../cli/support/errors.js";
import { agoSecs, clip } from "../../cli/support/format.js";
import { flag, opt, parseQuery } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { openReads } from "./support/sources.js";

export const conversations: Command = {
  name: "conversations",
  usage: `Usage: tenexd conversations [--project DIR] [--json] [-q TEXT] [--phase P] [--status S]
                            [--participant AGENT] [--archived] [--include-expired] [--limit N] [--offset N]

Lists conversations, most recently active first, with their alias (CONV-0001), phase, status,
message count and title.

  -q, --search TEXT     Only those whose title contains TEXT (case-insensitive) or a message
                        holds every word of TEXT (whole words; case and accents ignored)
  --phase P             chat, brainstorm, plan, execute, verification, chores or reflection
  --status S            open, closed or completed
  --participant AGENT   Only those an agent (slug or pubkey) wrote in or was addressed in
  --archived            Only archived conversations (default: all)
  --include-expired     Also those whose first message has expired (NIP-40; hidden by default)
  --limit N, --offset N Page size (default 50, at most 500) and start`,
  options: {
    search: { type: "string", short: "q" },
    phase: { type: "string" },
    status: { type: "string" },
    participant: { type: "string" },
    archived: { type: "boolean" },
    "include-expired": { type: "boolean" },
    limit: { type: "string" },
    offset: { type: "string" },
  },
  async run(ctx) {
    const query = await parseQuery(async () => (await import("../api/schemas.js")).conversationsQuery, {
      q: opt(ctx, "search"), phase: opt(ctx, "phase"), status: opt(ctx, "status"), participant: opt(ctx, "participant"),
      archived: flag(ctx, "archived"), includeExpired: flag(ctx, "include-expired"), limit: opt(ctx, "limit"), offset: opt(ctx, "offset"),
    }, PAGE_DEFAULTS);
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        const page = await src.api.conversations(query);
        emit(ctx, src.source, page, () => {
          if (page.items.length === 0 && page.offset === 0) return "No conversations.\n";
          const rows = page.items.map((c) => [
            c.alias, c.phase, c.status + (c.archived ? " (archived)" : ""), String(c.messageCount), agoSecs(c.updatedAt), clip(c.title, 60),
          ]);
          const shown = `${page.offset + 1}-${page.offset + page.items.length} of ${page.total ?? `at least ${page.totalAtLeast}`}`;
          return formatTable(["ALIAS", "PHASE", "STATUS", "MSGS", "UPDATED", "TITLE"], rows) + `(${shown})\n`;
        });
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};
