// `tenexd reply`: an agent's reply in a conversation, threaded under a message when given.

import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { MESSAGE_OPTIONS_HELP } from "./send.js";
import { cli } from "../../cli/support/errors.js";
import { listOpt, MESSAGE_OPTIONS, messageText, messagingOptions, need, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { postText } from "./support/render-post.js";
import { requireDaemon } from "./support/sources.js";

export const reply: Command = {
  name: "reply",
  usage: `Usage: tenexd reply [--project DIR] [--json] --from AGENT -c CONVERSATION -m TEXT [--parent MESSAGE]
                    [--to AGENT]... [--priority P] [--type T] [--expires D]

Publishes a NIP-22 reply signed with the agent's key. Refused in a closed conversation
(reopen it first).

  --from AGENT              Who replies (slug or pubkey)
  -c, --conversation REF    The conversation (alias, id or hex prefix)
  --parent MESSAGE          The message replied to (a thread); default: the conversation's root
  --to AGENT                Agents addressed (repeat, or a comma list); default: the author of
                            what is replied to (in a 1-on-1, the other agent). An addressed agent
                            with a command backend is run on it.
${MESSAGE_OPTIONS_HELP}`,
  options: {
    from: { type: "string" }, conversation: { type: "string", short: "c" }, parent: { type: "string" },
    to: { type: "string", multiple: true }, ...MESSAGE_OPTIONS,
  },
  async run(ctx) {
    const from = need(ctx, "from", "the agent replying");
    const conversation = need(ctx, "conversation", "the conversation (CONV-0001, an id or a hex prefix)");
    const content = messageText(ctx);
    const parent = opt(ctx, "parent");
    const recipients = listOpt(ctx, "to");
    const client = requireDaemon(ctx, "replying");
    return cli(async () => {
      const r = await client.reply({
        from, conversation, content, ...(parent !== undefined ? { parent } : {}), ...(recipients ? { recipients } : {}), ...messagingOptions(ctx),
      });
      emit(ctx, "daemon", r, () => postText(r));
      return EXIT.OK;
    });
  },
};
