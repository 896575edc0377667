// An agent's context for one trigger (TENEX's buildAgentMessages, docs/contract.md).
//
// The context is the conversation as it stood at the trigger: the events ordered before it
// (event-order.ts), then the trigger; nothing ordered after it, whenever it is built. The
// agent's cursor is the log position up to which it has seen the conversation. What it has
// seen comes back as history with roles (its own messages `assistant`, users `user`, other agents
// `system` "[Name]: …"); what others said since it last looked comes in one "MESSAGES WHILE YOU
// WERE AWAY" block followed by "NEW INTERACTION"; the trigger comes last. What a message it has
// seen answers counts as seen (agent-seen.ts), so nothing in the history answers something in
// the away block. An agent that never looked (cursor 0) gets everything before the trigger as
// plain history. Each event appears once.
//
// Cost: the history is rendered once per (conversation, agent) and kept in a ContextCache; a
// call renders only the events after the cached prefix (normally those new since the cursor)
// and copies the array of cached message references.

import {
  ContextCache, emptyPrefix, truncatePrefix, validLength, type RenderedPrefix,
} from "./agent-view.js";
import type { Conversation, StoredEvent } from "./conversation-state.js";
import { seenByAnswers } from "./agent-seen.js";
import { NotFoundError } from "./errors.js";
import { positionOf, seenThrough } from "./event-order.js";
import { claudeSessionOf } from "./tags.js";
import type { AgentInfo, NostrEvent } from "./types.js";

export interface AgentMessage {
  readonly role: "user" | "assistant" | "system";
  readonly content: string;
}

/** Where the agent's cursor goes after this context: the caller records it (decideCursor). */
export interface CursorMove {
  agent: string;
  seq: number;
  session?: string;
}

export interface AgentContext {
  messages: AgentMessage[];
  cursor: CursorMove;
  /** Claude session to resume: the trigger's, else the one the agent already had. */
  sessionId?: string;
}

export interface BuildOptions {
  nameOf(pubkey: string): string;
  isAgent(pubkey: string): boolean;
  cache?: ContextCache;
}

export const AWAY_HEADER = "=== MESSAGES WHILE YOU WERE AWAY ===";
export const NEW_INTERACTION = "=== NEW INTERACTION ===";

const attributed = (name: string, content: string) => `[${name}]: ${content}`;

/** How an author's messages appear to the agent: a role, and for other agents a "[Name]: " label. */
interface Voice {
  role: AgentMessage["role"];
  label: string;
}

/** Voices per author, asked of nameOf/isAgent once per author per call (they may be slow). */
function voices(self: string, opts: BuildOptions): (pubkey: string) => Voice {
  const memo = new Map<string, Voice>();
  return (pubkey) => {
    let voice = memo.get(pubkey);
    if (!voice) {
      if (pubkey === self) voice = { role: "assistant", label: "" };
      else if (opts.isAgent(pubkey)) voice = { role: "system", label: `[${opts.nameOf(pubkey)}]: ` };
      else voice = { role: "user", label: "" };
      memo.set(pubkey, voice);
    }
    return voice;
  };
}

function historyMessage(e: StoredEvent, voiceOf: (pubkey: string) => Voice): AgentMessage {
  const { role, label } = voiceOf(e.ev.pubkey);
  return { role, content: label === "" ? e.ev.content : label + e.ev.content };
}

function triggerMessage(trigger: NostrEvent, voiceOf: (pubkey: string) => Voice): AgentMessage {
  // The trigger is always the `user` turn; another agent's words keep their attribution.
  const { role, label } = voiceOf(trigger.pubkey);
  return { role: "user", content: role === "system" ? label + trigger.content : trigger.content };
}

function awayBlock(away: readonly StoredEvent[], opts: BuildOptions): AgentMessage[] {
  if (away.length === 0) return [];
  const lines = away.map((e) => attributed(opts.nameOf(e.ev.pubkey), e.ev.content));
  return [
    { role: "system", content: `${AWAY_HEADER}\n${lines.join("\n")}` },
    { role: "system", content: NEW_INTERACTION },
  ];
}

/** The cached prefix, cut back to what is still in place in the conversation (or a new one). */
function cachedPrefix(conv: Conversation, agent: string, cache?: ContextCache): RenderedPrefix {
  const cached = cache?.get(conv, agent);
  if (!cached) return emptyPrefix(conv.order.moves);
  truncatePrefix(cached, validLength(conv.events, conv.order.moves, cached));
  return cached;
}

export function buildAgentMessages(
  conv: Conversation, agent: AgentInfo, trigger: NostrEvent, opts: BuildOptions,
): AgentContext {
  const stored = conv.eventsById.get(trigger.id);
  // The trigger is applied (durable) before anyone acts on it: its position moves the cursor.
  if (!stored) throw new NotFoundError("trigger event in conversation", trigger.id);
  const self = agent.pubkey;
  const view = conv.views.get(self);
  const cursor = view?.cursor ?? 0;
  const { events, order } = conv;
  // The trigger is the end: the agent sees the conversation as it stood at its trigger, in the
  // conversation's order, and nothing ordered after it.
  const triggerAt = positionOf(events, order, stored);
  // Its next cursor: everything up to its trigger, even what arrived later but is ordered before
  // (a root fetched after the reply that named it).
  const seq = Math.max(cursor, seenThrough(events, order, triggerAt));
  const voiceOf = voices(self, opts);

  let prefix = cachedPrefix(conv, self, opts.cache);
  // Cached events the agent has not seen (the caller did not move its cursor): start over.
  if (cursor > 0 && prefix.maxN > cursor) prefix = emptyPrefix(order.moves);
  const cachedLength = prefix.events.length;
  // Cached history is all seen: plain history. (A retried run's trigger may lie inside it.)
  const history = prefix.messages.slice(0, Math.min(cachedLength, triggerAt));
  const away: StoredEvent[] = [];
  // Never looked (cursor 0): everything is plain history, no away block.
  const answered = cursor > 0 ? seenByAnswers(conv, self, cursor, cachedLength, triggerAt) : undefined;
  // Events after the cached prefix up to the trigger: new since the last call. After this call
  // the agent will have seen them, so they join the prefix, the trigger too.
  for (let i = cachedLength; i <= triggerAt; i++) {
    const e = events[i]!;
    const message = historyMessage(e, voiceOf);
    prefix.events.push(e);
    prefix.messages.push(message);
    prefix.maxN = Math.max(prefix.maxN, e.n);
    if (i === triggerAt) break;
    if (answered && e.n > cursor && e.ev.pubkey !== self && !answered.has(e.ev.id)) away.push(e);
    else history.push(message);
  }
  opts.cache?.set(conv, self, prefix);

  const sessionId = claudeSessionOf(trigger.tags) ?? view?.session;
  const session = sessionId !== undefined ? { session: sessionId } : {};
  history.push(...awayBlock(away, opts), triggerMessage(trigger, voiceOf));
  return {
    messages: history,
    cursor: { agent: self, seq, ...session },
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
}
