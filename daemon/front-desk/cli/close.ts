// `tenexd close` and `tenexd reopen`: a conversation's status. A closed direct conversation is
// not reused: the next message between the two agents starts a new one.

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { requireDaemon } from "./support/sources.js";

function statusCommand(name: "close" | "reopen"): Command {
  const verb = name === "close" ? "Closed" : "Reopened";
  return {
    name,
    usage: `Usage: tenexd ${name} [--project DIR] [--json] -c CONVERSATION [--by AGENT] [--reason TEXT]

  -c, --conversation REF   The conversation (alias, id or hex prefix)
  --by AGENT               The agent doing it (default: the Director)
  --reason TEXT            Why (kept in the audit trail)`,
    options: { conversation: { type: "string", short: "c" }, by: { type: "string" }, reason: { type: "string" } },
    async run(ctx) {
      const conversation = need(ctx, "conversation", "the conversation (CONV-0001, an id or a hex prefix)");
      const by = opt(ctx, "by");
      const reason = opt(ctx, "reason");
      const client = requireDaemon(ctx, name === "close" ? "closing a conversation" : "reopening a conversation");
      return cli(async () => {
        const opts = { ...(by !== undefined ? { by } : {}), ...(reason !== undefined ? { reason } : {}) };
        const r = name === "close" ? await client.close(conversation, opts) : await client.reopen(conversation, opts);
        emit(ctx, "daemon", r, () => (r.changed ? `${verb} ${conversation}\n` : `${conversation} was already ${r.status}\n`));
        return EXIT.OK;
      });
    },
  };
}

export const close = statusCommand("close");
export const reopen = statusCommand("reopen");
