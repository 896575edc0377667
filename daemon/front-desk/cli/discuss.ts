// `tenexd discuss`: start a discussion for every agent of a role, or for all agents.

import type { Command } from "../../cli/command.js";
import { EXIT, usageError } from "../../cli/errors.js";
import { MESSAGE_OPTIONS_HELP } from "./send.js";
import { cli } from "../../cli/support/errors.js";
import { flag, MESSAGE_OPTIONS, messageText, messagingOptions, need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { postText } from "./support/render-post.js";
import { requireDaemon } from "./support/sources.js";

export const discuss: Command = {
  name: "discuss",
  usage: `Usage: tenexd discuss [--project DIR] [--json] --from AGENT (--role ROLE | --all) -m TEXT [--title T]
                      [--priority P] [--type T] [--expires D]

Starts a conversation scoped to a role or to everyone: each agent in the scope gets it, and
every reply in it, in its inbox (an agent that joins the role later sees the whole discussion).

  --from AGENT        Who starts it (slug or pubkey)
  --role ROLE         Every agent with this role
  --all               Every agent
  --title T           Its title (default: the first line of the text)
${MESSAGE_OPTIONS_HELP}`,
  options: { from: { type: "string" }, role: { type: "string" }, all: { type: "boolean" }, title: { type: "string" }, ...MESSAGE_OPTIONS },
  async run(ctx) {
    const from = need(ctx, "from", "the agent starting the discussion");
    const role = opt(ctx, "role");
    if ((role === undefined) === !flag(ctx, "all")) throw usageError("give --role ROLE or --all (one of them)");
    const content = messageText(ctx);
    const title = opt(ctx, "title");
    const client = requireDaemon(ctx, "starting a discussion");
    return cli(async () => {
      const r = await client.discuss({
        from, scope: role !== undefined ? { role } : "all", content, ...(title !== undefined ? { title } : {}), ...messagingOptions(ctx),
      });
      emit(ctx, "daemon", r, () => postText(r));
      return EXIT.OK;
    });
  },
};
