// Where an agent's cursor (what it has seen of a conversation) moves, whichever way it works:
// - a context built for its turn (a command run, a mailbox agent's output): buildAgentMessages
//   gives the move, up to its trigger;
// - an explicit mark (`tenexd read --viewed`, POST …/viewed);
// - its own event, however it was published (through the daemon, or signed with its own key
//   and sent straight to a relay): an author had seen the conversation up to the event it
//   answers, named by its `triggering-event-id` tag (TENEX's agents and ours write it), else up
//   to its own place in the conversation (it answered what it had in front of it). This one is
//   part of the fold (conversation-reducer.ts): no record of its own, so an agent's message costs
//   no extra line in the log nor write in the index, and a replay moves the cursor alike.
// A cursor never moves back, and an agent's own messages are never "while you were away". What
// a message the agent has seen answers, it has seen too (seenByAnswers), wherever the cursor is:
// a back-fill can bring a question after its answer.

import type { Conversation, StoredEvent } from "./conversation-state.js";
import { positionOf, seenThrough } from "./event-order.js";
import { referencesOf } from "./references.js";
import { triggeringEventOf } from "./tags.js";

/** How far its author had seen the conversation, as its own event `own` (already placed) shows. */
export function seenByOwnEvent(conv: Conversation, own: StoredEvent): number {
  const named = triggeringEventOf(own.ev.tags);
  const answered = (named !== undefined ? conv.eventsById.get(named) : undefined) ?? own;
  return seenThrough(conv.events, conv.order, positionOf(conv.events, conv.order, answered));
}

/**
 * Events among `events[from, to)` that `self` has seen although they are past its cursor: what
 * its own messages answered (their trigger and what they reply to), and what any message it has
 * seen answers, up to the root. A reply is never shown before what it answers, and an answer
 * proves the question was read, even when a back-fill brought the question later.
 */
export function seenByAnswers(conv: Conversation, self: string, cursor: number, from: number, to: number): ReadonlySet<string> {
  const unseen = (e: StoredEvent) => e.n > cursor && e.ev.pubkey !== self;
  let first = from;
  while (first < to && !unseen(conv.events[first]!)) first++;
  if (first === to) return NOTHING;
  // What answers an event comes after it: only the seen events after the first unseen one can
  // make it seen. The cost is what is new since the cursor, not the history.
  const pending: string[] = [];
  for (let i = first + 1; i < to; i++) {
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
