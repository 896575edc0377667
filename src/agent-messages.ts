// An agent's context for one trigger (TENEX's buildAgentMessages, DESIGN.md §3).
//
// The agent's cursor is the log position up to which it has seen the conversation. What it has
// seen comes back as history with roles (its own messages `assistant`, users `user`, other agents
// `system` "[Name]: …"); what others said since it last looked comes in one "MESSAGES WHILE YOU
// WERE AWAY" block followed by "NEW INTERACTION"; the trigger comes last. An agent that never
// looked (cursor 0) gets everything before the trigger as plain history.
//
// Cost: the history is rendered once per (conversation, agent) and kept in a ContextCache; a
// call renders only the events after the cached prefix (normally those new since the cursor)
// and copies the array of cached message references.

import {
  ContextCache, emptyPrefix, truncatePrefix, validLength, type RenderedPrefix,
} from "./agent-view.js";
import type { Conversation, StoredEvent } from "./conversation-state.js";
import { insertionIndex } from "./conversation-reducer.js";
import { NotFoundError } from "./errors.js";
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
  if (!cached) return emptyPrefix();
  truncatePrefix(cached, validLength(conv.events, cached));
  return cached;
}

/** Largest log position among events[from, to). */
function maxN(events: readonly StoredEvent[], from: number, to: number): number {
  let max = 0;
  for (let i = from; i < to; i++) max = Math.max(max, events[i]!.n);
  return max;
}

/** The prefix's messages without the trigger's, when the trigger is an event already seen. */
function prefixMessages(prefix: RenderedPrefix, triggerAt: number): AgentMessage[] {
  if (triggerAt >= prefix.events.length) return prefix.messages.slice();
  return [...prefix.messages.slice(0, triggerAt), ...prefix.messages.slice(triggerAt + 1)];
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
  const events = conv.events;
  const triggerAt = insertionIndex(events, stored.ev);
  const voiceOf = voices(self, opts);

  // What the agent will have seen after this call (`bound`, its next cursor): its cursor, the
  // trigger, and every event ordered before the trigger, which is its history even when it
  // arrived later (a root fetched after the reply that named it).
  let bound: number | undefined;
  let prefix = cachedPrefix(conv, self, opts.cache);
  // Cached events the agent has not seen (the caller did not move its cursor): start over.
  if (cursor > 0 && prefix.maxN > cursor) prefix = emptyPrefix();
  if (triggerAt < prefix.events.length) {
    // A retried run: the trigger is already in the cached history. Rare enough for a scan.
    bound = Math.max(cursor, stored.n, maxN(events, 0, triggerAt));
    if (prefix.maxN > bound) prefix = emptyPrefix();
  }

  const history = prefixMessages(prefix, triggerAt);
  const away: StoredEvent[] = [];
  let maxBefore = prefix.maxN;
  // Events after the prefix: what is new since the last call. Those up to `bound` join the
  // prefix (after this call the agent will have seen them), until one beyond `bound` breaks it.
  let extending = true;
  for (let i = prefix.events.length; i < events.length; i++) {
    const e = events[i]!;
    if (bound === undefined) {
      // Ordered before the trigger: always included; the bound is known on reaching the trigger.
      if (i < triggerAt) maxBefore = Math.max(maxBefore, e.n);
      else bound = Math.max(cursor, stored.n, maxBefore);
    } else if (e.n > bound) {
      extending = false;
      continue;
    }
    // Never looked (cursor 0): everything is plain history, no away block.
    const isAway = cursor > 0 && e.n > cursor && e.ev.pubkey !== self;
    const message = extending || !isAway ? historyMessage(e, voiceOf) : undefined;
    if (extending) {
      prefix.events.push(e);
      prefix.messages.push(message!);
      prefix.maxN = Math.max(prefix.maxN, e.n);
    }
    if (e === stored) continue;
    if (isAway) away.push(e);
    else history.push(message!);
  }
  opts.cache?.set(conv, self, prefix);

  // Set by now: either up front (retried run) or on reaching the trigger, which the loop visits.
  const seq = bound!;
  const sessionId = claudeSessionOf(trigger.tags) ?? view?.session;
  const session = sessionId !== undefined ? { session: sessionId } : {};
  history.push(...awayBlock(away, opts), triggerMessage(trigger, voiceOf));
  return {
    messages: history,
    cursor: { agent: self, seq, ...session },
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
}
