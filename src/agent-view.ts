// Per-agent views of a conversation (cursor, claude session, read mark, acks) and the cache of
// each agent's rendered history, which keeps buildAgentMessages proportional to what is new.

import type { AgentMessage } from "./agent-messages.js";
import type { AgentView, Conversation, StoredEvent } from "./conversation-state.js";

/** The agent's view, created on first use (only the reducer calls this: it mutates). */
export function ensureView(conv: Conversation, pubkey: string): AgentView {
  let view = conv.views.get(pubkey);
  if (!view) {
    view = { pubkey, cursor: 0, readSeq: 0, acks: new Set() };
    conv.views.set(pubkey, view);
  }
  return view;
}

/**
 * One agent's rendered history: a prefix of `conv.events` (conversation order) as it was when rendered,
 * and the history message of each of those events, aligned one to one.
 */
export interface RenderedPrefix {
  events: StoredEvent[];
  messages: AgentMessage[];
  /** Largest log position among `events`. */
  maxN: number;
  /** The conversation's count of moved events when this prefix was last checked against it. */
  moves: number;
}

export const emptyPrefix = (moves: number): RenderedPrefix => ({ events: [], messages: [], maxN: 0, moves });

/**
 * Length of the part of `prefix` still in place in `events`. While events are only inserted,
 * once an insertion lands at index i every cached event from i on has shifted: the first
 * mismatch is found by binary search. After events moved (event-order.ts), some further on may
 * be back in place: then the prefix is compared one by one.
 */
export function validLength(events: readonly StoredEvent[], moves: number, prefix: RenderedPrefix): number {
  if (prefix.moves !== moves) {
    prefix.moves = moves;
    let i = 0;
    while (i < prefix.events.length && events[i] === prefix.events[i]) i++;
    return i;
  }
  let lo = 0;
  let hi = prefix.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid] === prefix.events[mid]) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function truncatePrefix(prefix: RenderedPrefix, length: number): void {
  if (length >= prefix.events.length) return;
  prefix.events.length = length;
  prefix.messages.length = length;
  let maxN = 0;
  for (const e of prefix.events) maxN = Math.max(maxN, e.n);
  prefix.maxN = maxN;
}

/**
 * Rendered histories per (conversation, agent). Keyed by the Conversation object itself, weakly:
 * a conversation evicted from memory takes its cache with it, and a reloaded one starts afresh.
 * The rendering depends on names (nameOf/isAgent); after renaming an agent, call forget().
 */
export class ContextCache {
  private readonly byConversation = new WeakMap<Conversation, Map<string, RenderedPrefix>>();

  get(conv: Conversation, agent: string): RenderedPrefix | undefined {
    return this.byConversation.get(conv)?.get(agent);
  }

  set(conv: Conversation, agent: string, prefix: RenderedPrefix): void {
    let perAgent = this.byConversation.get(conv);
    if (!perAgent) {
      perAgent = new Map();
      this.byConversation.set(conv, perAgent);
    }
    perAgent.set(agent, prefix);
  }

  forget(conv: Conversation): void {
    this.byConversation.delete(conv);
  }
}
