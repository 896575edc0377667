// `tenexd send`: a direct message from one agent to another, in their 1-on-1 conversation.

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { MESSAGE_OPTIONS, messageText, messagingOptions, need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { postText } from "./support/render-post.js";
import { requireDaemon } from "./support/sources.js";

export const MESSAGE_OPTIONS_HELP = `  -m, --message TEXT  The text ("-" reads it from stdin)
  --priority P        critical, high, medium or low
  --type T            context, result, decision, data, feedback, rejection, instruction,
                      test_output or advisory
  --expires D         Hide it after a while (NIP-40): 90s, 30m, 2h, 7d`;

export const send: Command = {
  name: "send",
  usage: `Usage: tenexd send [--project DIR] [--json] --from AGENT --to AGENT -m TEXT [--title T]
                   [--priority P] [--type T] [--expires D]

The daemon signs the message with the sender's key and publishes it. The first message between
two agents starts their conversation; later ones, in either direction, go to the same one while
it is open; once it is closed, the next message starts a new one. Sending to oneself is refused.

  --from AGENT        The sender (slug or pubkey)
  --to AGENT          The recipient
  --title T           Title, if this message starts the conversation (default "<from> ↔ <to>")
${MESSAGE_OPTIONS_HELP}`,
  options: { from: { type: "string" }, to: { type: "string" }, title: { type: "string" }, ...MESSAGE_OPTIONS },
  async run(ctx) {
    const from = need(ctx, "from", "the agent sending");
    const to = need(ctx, "to", "the agent to send to");
    const content = messageText(ctx);
    const title = opt(ctx, "title");
    const client = requireDaemon(ctx, "sending a message");
    return cli(async () => {
      const r = await client.sendDirect({ from, to, content, ...(title !== undefined ? { title } : {}), ...messagingOptions(ctx) });
      emit(ctx, "daemon", r, () => postText(r));
      return EXIT.OK;
    });
  },
};
