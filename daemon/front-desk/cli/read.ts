// `tenexd read`: mark a conversation read (or only viewed) by an agent.

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { flag, intOpt, need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { requireDaemon } from "./support/sources.js";

export const read: Command = {
  name: "read",
  usage: `Usage: tenexd read [--project DIR] [--json] -a AGENT -c CONVERSATION [--up-to N] [--viewed]

Read tracking: an agent's unread messages are those after its read mark (by log position) that
it has not acked. This moves the mark to the end of the conversation (or to --up-to N).
With --viewed it moves the agent's cursor instead (what it has seen: what \`show\` reports as
"viewed by", and what its next context treats as already seen).

  -a, --agent AGENT         The agent (slug or pubkey)
  -c, --conversation REF    The conversation (alias, id or hex prefix)
  --up-to N                 Up to this log position (the "N" column of \`tenexd show\`)
  --viewed                  Mark viewed (cursor) rather than read`,
  options: {
    agent: { type: "string", short: "a" }, conversation: { type: "string", short: "c" },
    "up-to": { type: "string" }, viewed: { type: "boolean" },
  },
  async run(ctx) {
    const agent = need(ctx, "agent", "the agent who read it");
    const conversation = need(ctx, "conversation", "the conversation (CONV-0001, an id or a hex prefix)");
    const upTo = opt(ctx, "up-to") !== undefined ? intOpt(ctx, "up-to", 0, 1) : undefined;
    const viewed = flag(ctx, "viewed");
    const client = requireDaemon(ctx, "marking read");
    return cli(async () => {
      const r = viewed ? await client.markViewed(conversation, agent, upTo) : await client.markRead(conversation, agent, upTo);
      const what = viewed ? "viewed" : "read";
      emit(ctx, "daemon", { ...r, mark: what }, () => `${r.changed ? `Marked ${what}` : `Already ${what}`}: ${conversation} by ${r.agent}\n`);
      return EXIT.OK;
    });
  },
};
