// NIP-22 replies (kind 1111) and completions, tagged the way TENEX clients read them:
// `E`/`K`/`P` name the root, `e`/`k` the parent (its author in `e`'s 4th element), `a` the
// project, and lowercase `p` the ADDRESSED recipients, because p-tags are what routing follows
// (docs/contract.md): tagging the parent's author there would trigger it on every reply.

import { KIND } from "../kinds.js";
import type { Phase, UnsignedEvent } from "../types.js";
import {
  messagingTags, pTags, requireProject, requireRef, requireTimestamp,
  type EventRef, type MessagingOptions,
} from "./common.js";

export interface ReplyInput extends MessagingOptions {
  /** The conversation root (kind 11 or 1934). */
  root: EventRef;
  /** The event replied to; the root when absent. */
  parent?: EventRef;
  /** Full project coordinate `31933:<owner>:<d>`. */
  project: string;
  /** The conversation phase the agent acted in. */
  phase: Phase;
  content: string;
  /** Pubkeys addressed: the first project agent among them is the one triggered. */
  recipients?: readonly string[];
  /** Claude session id, for session continuity. */
  session?: string;
  triggeringEventId?: string;
  /** Time the agent worked on this, in seconds. */
  netTimeSecs?: number;
  /** Unix seconds. */
  createdAt: number;
}

export function optionalTags(input: ReplyInput): string[][] {
  const out: string[][] = [];
  if (input.session !== undefined) out.push(["claude-session", input.session]);
  if (input.triggeringEventId !== undefined) out.push(["triggering-event-id", input.triggeringEventId]);
  // Whole seconds: that is what TENEX clients display, and it keeps the tag a plain integer.
  if (input.netTimeSecs !== undefined) out.push(["net-time", String(Math.max(0, Math.floor(input.netTimeSecs)))]);
  return [...out, ...messagingTags(input)];
}

/** A reply's root and parent (the root when none is given), once the input is checked: both dialects build on these. */
export function checkedReply(input: ReplyInput): { root: EventRef; parent: EventRef } {
  const { root } = input;
  const parent = input.parent ?? root;
  requireRef("root", root);
  requireRef("parent", parent);
  requireProject(input.project);
  requireTimestamp("createdAt", input.createdAt);
  return { root, parent };
}

export function buildReply(input: ReplyInput): UnsignedEvent {
  const { root, parent } = checkedReply(input);
  return {
    kind: KIND.REPLY,
    created_at: input.createdAt,
    content: input.content,
    tags: [
      ["E", root.id, "", root.pubkey],
      ["K", String(root.kind)],
      ["P", root.pubkey],
      ["e", parent.id, "", parent.pubkey],
      ["k", String(parent.kind)],
      ["a", input.project],
      ...pTags(input.recipients),
      ["phase", input.phase],
      ...optionalTags(input),
    ],
  };
}

export interface CompletionInput extends Omit<ReplyInput, "recipients"> {
  /** Pubkey of the project's orchestrator: the only one a completion addresses. */
  orchestrator: string;
}

/** A reply saying "my part of this turn is done": `["tool","complete"]`, addressed to the orchestrator. */
export function buildCompletion(input: CompletionInput): UnsignedEvent {
  const { orchestrator, ...rest } = input;
  const reply = buildReply({ ...rest, recipients: [orchestrator] });
  return { ...reply, tags: [...reply.tags, ["tool", "complete"]] };
}
