// Where an agent's cursor (what it has seen of a conversation) moves, whichever way it works:
// - a context built for its turn (a command run, a mailbox agent's output): buildAgentMessages
//   gives the move, up to its trigger;
// - an explicit mark (`tenexd read --viewed`, POST …/viewed);
// - its own event, however it was published (through the daemon, or signed with its own key
//   and sent straight to a relay): an agent that speaks had seen the conversation up to the
//   event it answers, named by its `triggering-event-id` tag (TENEX's agents and ours write it),
//   else up to its own place in the conversation (it answered what it had in front of it).
// A cursor never moves back, and an agent's own messages are never "while you were away". What
// a message the agent has seen answers, it has seen too (seenByAnswers), wherever the cursor is:
// a back-fill can bring a question after its answer.

import type { Conversation, StoredEvent } from "./conversation-state.js";
import { decideCursor } from "./conversation.js";
import { positionOf, seenThrough } from "./event-order.js";
import { referencesOf } from "./references.js";
import type { CursorRecord } from "./records.js";
import { triggeringEventOf } from "./tags.js";
import type { NostrEvent } from "./types.js";

/** The cursor move that `ev` (already in `conv`, authored by an agent) shows. */
export function decideSeenByOwnEvent(conv: Conversation, ev: NostrEvent, now: number): Omit<CursorRecord, "n">[] {
  const own = conv.eventsById.get(ev.id);
  if (!own) return [];
  const named = triggeringEventOf(ev.tags);
  const answered = (named !== undefined ? conv.eventsById.get(named) : undefined) ?? own;
  const seq = seenThrough(conv.events, conv.order, positionOf(conv.events, conv.order, answered));
  return decideCursor(conv, { agent: ev.pubkey, seq }, now);
}

/**
 * Events among `events[from, to)` that `self` has seen although they are past its cursor: what
 * its own messages answered (their trigger and what they reply to), and what any message it has
 * seen answers, up to the root. A reply is never shown before what it answers, and an answer
 * proves the question was read, even when a back-fill brought the question later.
 */
export function seenByAnswers(conv: Conversation, self: string, cursor: number, from: number, to: number): ReadonlySet<string> {
  const unseen = (e: StoredEvent) => e.n > cursor && e.ev.pubkey !== self;
  let any = false;
  for (let i = from; i < to && !any; i++) any = unseen(conv.events[i]!);
  if (!any) return NOTHING;
  const pending: string[] = [];
  for (let i = from; i < to; i++) {
    const e = conv.events[i]!;
    if (unseen(e)) continue;
    pending.push(...referencesOf(e.ev).ancestors);
    const named = e.ev.pubkey === self ? triggeringEventOf(e.ev.tags) : undefined;
    if (named !== undefined) pending.push(named);
  }
  // Up the chain: each event is marked once, so a long thread costs its length.
  const seen = new Set<string>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    const stored = conv.eventsById.get(id);
    if (!stored || !unseen(stored) || seen.has(id)) continue;
    seen.add(id);
    pending.push(...referencesOf(stored.ev).ancestors);
  }
  return seen;
}

const NOTHING: ReadonlySet<string> = new Set();
