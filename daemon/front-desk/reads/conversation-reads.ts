// Reading conversations: the list (search, filters, pages), one conversation in full (its
// timeline, phases, turns, execution time, who has viewed it) and its audit trail.

import type { AuditEntry, ConversationSearchQuery } from "../../../src/read-model.js";
import type { Conversation, Turn } from "../../../src/conversation-state.js";
import { totalExecutionMs } from "../../../src/execution-time.js";
import { isExpired } from "../../../src/messaging/unread.js";
import { threadOf } from "../../../src/messaging/threads.js";
import { inConversationOrder } from "../../../src/timeline.js";
import { seenThrough } from "../../../src/event-order.js";
import { isHex64 } from "../../../src/types.js";
import { conversationAlias } from "./aliases.js";
import { conversationItem, loadConversation, type ReadContext } from "./read-context.js";
import type { AuditView, ConversationDetail, ConversationPage, TimelineEntry, TurnView, ViewState } from "../shapes.js";

export type ConversationsQuery = Omit<ConversationSearchQuery, "now">;

export function listConversations(ctx: ReadContext, q: ConversationsQuery): ConversationPage {
  // Any pubkey may be a participant (users too); anything else must name an agent.
  const participant = q.participant === undefined || isHex64(q.participant) ? q.participant : ctx.agents.resolve(q.participant).pubkey;
  const { items, ...counted } = ctx.reader.conversations.list({ ...q, participant, now: ctx.now() });
  return { ...counted, limit: q.limit, offset: q.offset, items: items.map(conversationItem) };
}

export async function showConversation(ctx: ReadContext, ref: string, opts: { includeExpired?: boolean } = {}): Promise<ConversationDetail> {
  const id = ctx.aliases.conversation(ref);
  const row = ctx.reader.conversations.get(id)!;
  const conv = await loadConversation(ctx, id);
  const now = ctx.now();
  const hidden = opts.includeExpired ? new Set<string>() : expiredIds(conv, Math.floor(now / 1000));
  const views = viewStates(ctx, conv);
  return {
    conversation: { ...conversationItem(row), project: row.project },
    execution: { totalMs: totalExecutionMs(conv.exec, now), running: conv.exec.openSince !== undefined },
    phase: {
      current: conv.phase.phase,
      transitions: conv.phase.transitions.map((t) => ({
        from: t.from, to: t.to, by: ctx.agents.label(t.by), message: t.message, reason: t.reason, at: t.at,
      })),
      refused: conv.phase.refused.map((t) => ({ from: t.from, to: t.to, by: ctx.agents.label(t.by), reason: t.reason, at: t.at })),
    },
    turns: conv.turns.turns.map((t) => turnView(ctx, t)),
    views,
    viewedBy: views.filter((v) => v.current).map((v) => v.label),
    timeline: numbered(timeline(ctx, id, conv).filter((e) => e.kind !== "message" || !hidden.has(e.data.eventId))),
    thread: threadOf(conv.events.map((e) => e.ev), id)
      .filter((t) => !hidden.has(t.ev.id))
      .map((t) => ({ id: t.ev.id, alias: ctx.aliases.messageAliasOf(t.ev.id) ?? null, depth: t.depth, parentId: t.parentId ?? null })),
  };
}

export async function auditTrail(ctx: ReadContext, ref: string): Promise<AuditView> {
  const id = ctx.aliases.conversation(ref);
  const conv = await ctx.load(id);
  return { conversationId: id, alias: conversationAlias(ctx.reader.aliases.conversationSeqOf(id)!), entries: numbered(timeline(ctx, id, conv)) };
}

function expiredIds(conv: Conversation, nowSecs: number): Set<string> {
  return new Set(conv.events.filter((e) => isExpired(e.ev.tags, nowSecs)).map((e) => e.ev.id));
}

/** Messages numbered 1, 2, 3… as listed (their log positions stay in `n`). */
function numbered(entries: TimelineEntry[]): TimelineEntry[] {
  let number = 0;
  return entries.map((e) => (e.kind === "message" ? { ...e, number: ++number } : e));
}

/**
 * The index's audit trail in the conversation's order (src/timeline.ts); message entries get
 * their alias, author label and whole content.
 */
function timeline(ctx: ReadContext, id: string, conv: Conversation | undefined): TimelineEntry[] {
  const trail = ctx.reader.audit.auditTrail(id);
  const ordered = conv ? inConversationOrder(conv, trail, (e) => (e.kind === "message" ? e.data.eventId : undefined)) : trail;
  return ordered.map((e: AuditEntry): TimelineEntry => {
    if (e.kind !== "message") return e;
    const content = conv?.eventsById.get(e.data.eventId)?.ev.content;
    return {
      ...e,
      alias: ctx.aliases.messageAliasOf(e.data.eventId),
      from: ctx.agents.label(e.data.author),
      ...(content !== undefined ? { content } : {}),
    };
  });
}

/** Who has seen and read how far, from the conversation itself (its authors' own messages move their cursors in the fold). */
function viewStates(ctx: ReadContext, conv: Conversation): ViewState[] {
  const last = conv.events.length > 0 ? seenThrough(conv.events, conv.order, conv.events.length - 1) : 0;
  return [...conv.views.values()].filter((v) => v.cursor > 0 || v.readSeq > 0).map((v) => ({
    agent: v.pubkey, label: ctx.agents.label(v.pubkey), cursor: v.cursor, read: v.readSeq,
    current: last > 0 && Math.max(v.cursor, v.readSeq) >= last,
  })).sort((a, b) => a.label.localeCompare(b.label));
}

function turnView(ctx: ReadContext, t: Turn): TurnView {
  const done = new Set([...t.completions.values()].map((c) => c.agent));
  return {
    number: t.number, phase: t.phase, agents: t.agents.map((a) => ctx.agents.label(a)), reason: t.reason, status: t.status,
    startedAt: t.startedAt, endedAt: t.endedAt ?? null, deadline: t.deadline ?? null,
    waitingFor: t.status === "open" ? t.agents.filter((a) => !done.has(a)).map((a) => ctx.agents.label(a)) : [],
    completions: [...t.completions.values()].map((c) => ({ agent: ctx.agents.label(c.agent), message: c.message, at: c.at })),
  };
}
