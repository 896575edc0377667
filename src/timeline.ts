// A conversation's timeline (its messages and state changes, as `show` and the API list them)
// in the conversation's order: messages as every reader orders them (event-order.ts), each state
// change after the messages logged before it. A state change goes right before the first
// message (in the conversation's order) past which some message logged after it has been shown:
// when the order is the log's, that is its log position.

import type { Conversation } from "./conversation-state.js";

/** `entries` (in log order, each with its log position `n`) reordered; `eventIdOf` says which are messages. */
export function inConversationOrder<T extends { n: number }>(
  conv: Conversation, entries: readonly T[], eventIdOf: (entry: T) => string | undefined,
): T[] {
  const messages = new Map<string, T>();
  const changes: T[] = [];
  for (const e of entries) {
    const id = eventIdOf(e);
    if (id !== undefined) messages.set(id, e);
    else changes.push(e);
  }
  const out: T[] = [];
  let next = 0;
  let shownUpTo = 0;
  for (const stored of conv.events) {
    const message = messages.get(stored.ev.id);
    if (!message) continue;
    shownUpTo = Math.max(shownUpTo, message.n);
    while (next < changes.length && changes[next]!.n < shownUpTo) out.push(changes[next++]!);
    out.push(message);
    messages.delete(stored.ev.id);
  }
  // Messages the conversation in memory does not hold (none, normally), then what was logged last.
  return [...out, ...messages.values(), ...changes.slice(next)];
}
