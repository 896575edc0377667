// `tenexd ack`: an agent acknowledges one message (it leaves the agent's unread mail).

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { need } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { requireDaemon } from "./support/sources.js";

export const ack: Command = {
  name: "ack",
  usage: `Usage: tenexd ack [--project DIR] [--json] -a AGENT --msg MESSAGE

  -a, --agent AGENT   The agent (slug or pubkey)
  --msg MESSAGE       The message: alias (MSG-H-0042), id or hex prefix`,
  options: { agent: { type: "string", short: "a" }, msg: { type: "string" } },
  async run(ctx) {
    const agent = need(ctx, "agent", "the agent acknowledging");
    const msg = need(ctx, "msg", "the message to acknowledge (MSG-…, an id or a hex prefix)");
    const client = requireDaemon(ctx, "acknowledging a message");
    return cli(async () => {
      const r = await client.ack(msg, agent);
      emit(ctx, "daemon", r, () => `${r.changed ? "Acknowledged" : "Already acknowledged"}: ${msg} by ${r.agent}\n`);
      return EXIT.OK;
    });
  },
};
