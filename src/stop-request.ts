// A stop request (kind 24134, as today's TENEX clients send it: `e` the conversation, `p` the
// agents to stop, `a` the project) is honoured only from the project's people and for its own
// work, and only when fresh: it was sent in the last two minutes, its author is the owner or a
// whitelisted user (an agent cannot stop another), it names a conversation held here, any
// project tag it carries is this project's, and the agents it names are the project's. Decided on the verified event and what the daemon holds.

import type { Conversation } from "./conversation-state.js";
import { decideRead, markPosition } from "./conversation.js";
import { projectOf } from "./coordinate.js";
import { noteConversationId } from "./dialect.js";
import { KIND } from "./kinds.js";
import { agentByPubkey } from "./routing.js";
import { mentionedPubkeys } from "./tags.js";
import type { NewRecord } from "./records.js";
import type { NostrEvent, ProjectInfo } from "./types.js";

export type StopRefusal = "not_a_stop" | "stop_stale" | "stop_not_authorised" | "stop_other_project" | "stop_unknown_conversation" | "stop_names_no_agent";

// A stop is sent the moment the user presses it. An older one is a replay (a signed stop is
// public once on a relay, and anyone may send it again later, after the run it meant is long
// gone and another has started): refused. Two minutes leaves room for clocks that disagree.
export const STOP_MAX_AGE_S = 120;

export type StopDecision =
  | { stop: true; conversationId: string; agents: string[] }
  | { stop: false; reason: StopRefusal; detail: string };

const refuse = (reason: StopRefusal, detail: string): StopDecision => ({ stop: false, reason, detail });

export function decideStop(ev: NostrEvent, project: ProjectInfo, holds: (conversationId: string) => boolean, nowSeconds: number): StopDecision {
  if (ev.kind !== KIND.STOP) return refuse("not_a_stop", `kind ${ev.kind}`);
  if (ev.created_at < nowSeconds - STOP_MAX_AGE_S) return refuse("stop_stale", `sent ${nowSeconds - ev.created_at} s ago (at most ${STOP_MAX_AGE_S} s)`);
  if (!project.whitelist.includes(ev.pubkey) && ev.pubkey !== project.ownerPubkey) {
    return refuse("stop_not_authorised", `author ${ev.pubkey.slice(0, 12)}… is neither the owner nor a whitelisted user`);
  }
  const coord = projectOf(ev.tags);
  if (coord !== undefined && coord !== project.coordinate) return refuse("stop_other_project", `for ${coord}`);
  // The conversation as TENEX names it: the `e` marked root, else the first unmarked `e`.
  const named = noteConversationId(ev);
  if (named === ev.id || !holds(named)) return refuse("stop_unknown_conversation", named === ev.id ? "no `e` tag" : `conversation ${named.slice(0, 12)}… is not held here`);
  const agents = mentionedPubkeys(ev.tags).filter((pk) => agentByPubkey(project, pk) !== undefined);
  if (agents.length === 0) return refuse("stop_names_no_agent", "no `p` tag names one of the project's agents");
  return { stop: true, conversationId: named, agents };
}

/**
 * A mailbox agent has no run to end: its pending work in the conversation (what it has not read)
 * is marked stopped, a read mark up to the conversation's last message that names the request.
 * Nothing when it had nothing pending.
 */
export function decideStopPending(conv: Conversation, agent: string, stoppedBy: { eventId?: string; by: string }, now: number): NewRecord[] {
  return decideRead(conv, agent, markPosition(conv, undefined), now).map((r) => ({ ...r, stoppedBy }));
}
