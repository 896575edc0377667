// `tenexd show`: one conversation (timeline, phases, turns, execution time, who has viewed it),
// or one message in full.

import type { Command } from "../../cli/command.js";
import { EXIT, usageError } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { flag, opt } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { renderConversation, renderMessage } from "./support/render-conversation.js";
import { openReads } from "./support/sources.js";

export const show: Command = {
  name: "show",
  usage: `Usage: tenexd show [--project DIR] [--json] (-c CONVERSATION [--thread] [--include-expired] | --msg MESSAGE)

  -c, --conversation REF  The conversation: its alias (CONV-0007), id, or a hex prefix of 6+ characters.
                          Prints its phase changes, orchestrator turns, execution time, who has viewed
                          it since its last message, and its timeline: messages numbered 1, 2, 3… in
                          the conversation's order (never before what they answer, then by time, then
                          as received), each state change after the messages logged before it. With
                          --json each entry keeps its log position (n).
  --thread                Show the messages as a thread (replies indented under their parent)
  --include-expired       Also show expired messages (NIP-40; hidden by default)
  --msg REF               One message in full: alias (MSG-H-0042), id or hex prefix`,
  options: {
    conversation: { type: "string", short: "c" },
    msg: { type: "string" },
    thread: { type: "boolean" },
    "include-expired": { type: "boolean" },
  },
  async run(ctx) {
    const conv = opt(ctx, "conversation");
    const msg = opt(ctx, "msg");
    if ((conv === undefined) === (msg === undefined)) throw usageError("give -c CONVERSATION or --msg MESSAGE (one of them)");
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        if (msg !== undefined) {
          const m = await src.api.message(msg);
          emit(ctx, src.source, m, () => renderMessage(m));
        } else {
          const d = await src.api.conversation(conv!, { includeExpired: flag(ctx, "include-expired") });
          emit(ctx, src.source, d, () => renderConversation(d, { thread: flag(ctx, "thread"), now: Date.now() }));
        }
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};
