// `tenexd context`: what an agent would be given for a trigger: the same document a command
// agent reads on stdin (docs/agent-protocol.md). Reading it changes nothing.

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { fields } from "../../cli/support/format.js";
import { need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { openReads } from "./support/sources.js";

export const context: Command = {
  name: "context",
  usage: `Usage: tenexd context [--project DIR] [--json] -a AGENT -c CONVERSATION [--trigger MESSAGE]

Builds the agent's input for a trigger exactly as the daemon gives it to a command agent
(docs/agent-protocol.md): its messages (history, the "while you were away" block, the trigger),
the other agents, the allowed phases, and for the orchestrator the routing context. Nothing is
recorded: the agent's cursor does not move.

  -a, --agent AGENT         The agent (slug or pubkey)
  -c, --conversation REF    The conversation (alias, id or hex prefix)
  --trigger MESSAGE         The message to answer (default: the newest one addressed to the agent)`,
  options: {
    agent: { type: "string", short: "a" },
    conversation: { type: "string", short: "c" },
    trigger: { type: "string" },
  },
  async run(ctx) {
    const agent = need(ctx, "agent", "the agent whose context to show");
    const conversation = need(ctx, "conversation", "the conversation (CONV-0001, an id or a hex prefix)");
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        const input = await src.api.context(agent, conversation, opt(ctx, "trigger"));
        emit(ctx, src.source, input, () => {
          const head = fields([
            ["agent", `${input.agent.slug}${input.agent.orchestrator ? " (orchestrator)" : ""}`],
            ["conversation", `${input.conversation.title}  (phase ${input.conversation.phase})`],
            ["trigger", `${input.trigger.id.slice(0, 12)}… from ${input.trigger.authorName}`],
            ["allowed phases", input.allowedPhases.join(", ")],
            ["session", input.session ?? "-"],
          ]);
          const messages = input.messages.map((m) => `--- ${m.role}\n${m.content}\n`).join("");
          return `${head}\n${messages}`;
        });
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};
