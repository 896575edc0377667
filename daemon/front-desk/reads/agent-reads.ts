// What agents and the orchestrator read: a conversation's routing context (with the signs of a
// looping orchestrator), an agent's context for a trigger (the same document a command agent
// gets on stdin, docs/agent-protocol.md), and the index-wide statistics.

import { buildAgentMessages } from "../../../src/agent-messages.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { defaultTrigger } from "../../../src/default-trigger.js";
import { inlineMessages } from "../../../src/entities.js";
import { NotFoundError } from "../../../src/errors.js";
import { buildRoutingContext } from "../../../src/routing-context.js";
import { detectRoutingProblems } from "../../../src/routing-health.js";
import type { AgentInfo, NostrEvent } from "../../../src/types.js";
import { buildAgentInput, type AgentInput } from "../../../src/agent-input.js";
import { conversationAlias } from "./aliases.js";
import { loadConversation, type ReadContext } from "./read-context.js";
import type { AgentStats, RoutingView, StatsView } from "../shapes.js";

export async function routingView(ctx: ReadContext, ref: string): Promise<RoutingView> {
  const id = ctx.aliases.conversation(ref);
  const conv = await loadConversation(ctx, id);
  const label = (pk: string) => ctx.agents.label(pk);
  const problems = detectRoutingProblems(conv.turns, {
    repeatThreshold: ctx.limits.repeatRoutingThreshold, stallThreshold: ctx.limits.stallThreshold,
  });
  return {
    conversationId: id,
    alias: conversationAlias(ctx.reader.aliases.conversationSeqOf(id)!),
    phase: conv.phase.phase,
    routing: buildRoutingContext(conv, label),
    problems: {
      ...(problems.repeatedRouting ? { repeatedRouting: { ...problems.repeatedRouting, agents: problems.repeatedRouting.agents.map(label) } } : {}),
      ...(problems.stalled ? { stalled: problems.stalled } : {}),
    },
  };
}

export interface ContextTarget {
  conversation: Conversation;
  agent: AgentInfo;
  trigger: NostrEvent;
}

/** The agent, the conversation and the trigger a context is built for. */
export async function contextTarget(ctx: ReadContext, agentRef: string, convRef: string, triggerRef?: string): Promise<ContextTarget> {
  const agent = ctx.agents.resolve(agentRef);
  const conversation = await loadConversation(ctx, ctx.aliases.conversation(convRef));
  const trigger = triggerRef !== undefined ? conversation.eventsById.get(ctx.aliases.message(triggerRef))?.ev : defaultTrigger(conversation, agent);
  if (!trigger) throw new NotFoundError(`trigger in conversation ${conversation.id}`, triggerRef ?? "(none: the conversation has no message)");
  return { conversation, agent, trigger };
}

export async function agentContext(ctx: ReadContext, agentRef: string, convRef: string, triggerRef?: string): Promise<AgentInput> {
  const t = await contextTarget(ctx, agentRef, convRef, triggerRef);
  const input = inputFor(ctx, t);
  // As a command agent gets it: `nostr:` references inlined where the relays have them.
  return ctx.entities ? { ...input, messages: await inlineMessages(input.messages, ctx.entities) } : input;
}

export function inputFor(ctx: ReadContext, t: ContextTarget): AgentInput {
  const nameOf = (pk: string) => ctx.agents.nameOf(pk);
  // No context cache: a read must not leave state behind (the cache assumes the cursor moves).
  const context = buildAgentMessages(t.conversation, t.agent, t.trigger, { nameOf, isAgent: (pk) => ctx.agents.isAgent(pk) });
  return buildAgentInput({ agent: t.agent, project: ctx.agents.project, conversation: t.conversation, trigger: t.trigger, context, nameOf });
}

export function statsView(ctx: ReadContext): StatsView {
  const roles = new Map(ctx.agents.all.map((a) => [a.pubkey, a.role]));
  const stats = ctx.reader.stats.stats({ now: ctx.now(), roles });
  const threshold = ctx.limits.unreadThreshold;
  const agents: AgentStats[] = ctx.agents.all.map((a) => {
    const unread = stats.unread.byAgent[a.pubkey] ?? 0;
    return {
      slug: a.slug, pubkey: a.pubkey, role: a.role, unread, overThreshold: unread > threshold,
      responseTime: stats.responseTimes.byAgent[a.pubkey] ?? null,
    };
  });
  // Authors named as everywhere else ("owner", slugs), not by a hex prefix.
  const topCommunicators = stats.topCommunicators.map((t) => ({ ...t, from: ctx.agents.label(t.author) }));
  return { ...stats, topCommunicators, unreadThreshold: threshold, agents };
}
