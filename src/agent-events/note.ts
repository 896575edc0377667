// Replies and completions in today's TENEX dialect (kind 1, NIP-10), as its encoder writes them
// (tenex-protocol encoder_helpers.rs add_conversation_tags, tags.rs): `["e", root, "", "root"]`,
// `["e", parent, "", "reply"]`, the addressed `p` tags, the project `a`. A completion is marked
// `["status","completed"]` rather than `["tool","complete"]`: TENEX takes an event with a
// `tool` tag for a tool call and leaves it out of the conversation. The rest (phase, session,
// triggering event, net time, messaging tags) rides on the same tags as in NIP-22.

import { KIND } from "../kinds.js";
import type { UnsignedEvent } from "../types.js";
import { pTags } from "./common.js";
import { checkedReply, optionalTags, type CompletionInput, type ReplyInput } from "./reply.js";

export function buildNoteReply(input: ReplyInput): UnsignedEvent {
  const { root, parent } = checkedReply(input);
  return {
    kind: KIND.TEXT_NOTE,
    created_at: input.createdAt,
    content: input.content,
    tags: [
      ["e", root.id, "", "root"],
      ["e", parent.id, "", "reply"],
      ...pTags(input.recipients),
      ["a", input.project],
      ["phase", input.phase],
      ...optionalTags(input),
    ],
  };
}

/** A completion in kind 1: addressed to the orchestrator, `["status","completed"]`. */
export function buildNoteCompletion(input: CompletionInput): UnsignedEvent {
  const { orchestrator, ...rest } = input;
  const reply = buildNoteReply({ ...rest, recipients: [orchestrator] });
  return { ...reply, tags: [...reply.tags, ["status", "completed"]] };
}
