// `tenexd ask`: start a conversation as the project owner (the way a TENEX client would).

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { listOpt, messageText, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { postText } from "./support/render-post.js";
import { requireDaemon } from "./support/sources.js";

export const ask: Command = {
  name: "ask",
  usage: `Usage: tenexd ask [--project DIR] [--json] -m TEXT [--to AGENT]… [--title T]

Publishes a kind 11 conversation root tagged with the project, signed with the owner's key
(config.json project.owner.keyFile), exactly as a TENEX client would. Without --to the
orchestrator decides who works on it; with --to, the first agent named is triggered.

  -m, --message TEXT  The request ("-" reads it from stdin)
  --to AGENT          An agent to address (slug or pubkey); repeatable
  --title T           The conversation's title (default: the first line of the request)`,
  options: { message: { type: "string", short: "m" }, to: { type: "string", multiple: true }, title: { type: "string" } },
  async run(ctx) {
    const content = messageText(ctx);
    const title = opt(ctx, "title");
    const to = listOpt(ctx, "to");
    const client = requireDaemon(ctx, "asking as the owner");
    return cli(async () => {
      const r = await client.ask({ content, ...(title !== undefined ? { title } : {}), ...(to ? { to } : {}) });
      emit(ctx, "daemon", r, () => postText(r));
      return EXIT.OK;
    });
  },
};
