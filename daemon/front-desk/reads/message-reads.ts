// Reading messages: across conversations with filters (the audit feed), one message in full,
// and an agent's inbox (unread, most urgent first, with the conversations they are in).

import type { MessageOrder, MessageQuery, MessageSummary } from "../../../src/read-model.js";
import { NotFoundError } from "../../../src/errors.js";
import { messageItem, type ReadContext } from "./read-context.js";
import type { InboxView, MessageDetail, MessageItem, Page } from "../shapes.js";

export interface MessagesQuery extends Omit<MessageQuery, "now" | "conversation" | "recipient" | "author" | "order"> {
  conversation?: string;
  recipient?: string;
  author?: string;
  order?: MessageOrder;
}

export function listMessages(ctx: ReadContext, q: MessagesQuery): Page<MessageItem> {
  const { total, items } = ctx.reader.messages.list({
    ...q,
    conversation: q.conversation !== undefined ? ctx.aliases.conversation(q.conversation) : undefined,
    recipient: q.recipient !== undefined ? ctx.agents.resolve(q.recipient).pubkey : undefined,
    author: q.author !== undefined ? ctx.agents.resolve(q.author).pubkey : undefined,
    order: q.order ?? (q.unread ? "priority" : "desc"),
    now: ctx.now(),
  });
  return { total, limit: q.limit, offset: q.offset, items: items.map((r) => messageItem(ctx, r)) };
}

export async function showMessage(ctx: ReadContext, ref: string): Promise<MessageDetail> {
  const id = ctx.aliases.message(ref);
  const row = ctx.reader.messages.get(id);
  const stored = row && (await ctx.load(row.conversationId))?.eventsById.get(id);
  if (!row || !stored) throw new NotFoundError("message", ref);
  const readers = ctx.reader.messages.recipientsOf(row.conversationId, row.n).filter((r) => !r.unread);
  return { ...messageItem(ctx, row), content: stored.ev.content, event: stored.ev, readBy: readers.map((r) => ctx.agents.label(r.recipient)) };
}

export interface InboxQuery {
  type?: string;
  includeExpired?: boolean;
  limit: number;
  offset: number;
}

export function inbox(ctx: ReadContext, agentRef: string, q: InboxQuery): InboxView {
  const agent = ctx.agents.resolve(agentRef);
  const now = ctx.now();
  const page = q.type === undefined ? unreadPage(ctx, agent.pubkey, q, now) : ctx.reader.messages.list({
    recipient: agent.pubkey, unread: true, type: q.type, includeExpired: q.includeExpired, now, order: "priority",
    limit: q.limit, offset: q.offset,
  });
  const summary = ctx.reader.unread.inbox(agent.pubkey, { now, includeExpired: q.includeExpired, limit: 0 });
  const titles = new Map(summary.conversations.map((c) => [c.conversationId, c.title]));
  const titleOf = (id: string) => titles.get(id) ?? ctx.reader.conversations.get(id)?.title ?? "";
  return {
    agent: { slug: agent.slug, pubkey: agent.pubkey },
    total: page.total,
    items: page.items.map((r) => ({ ...messageItem(ctx, r), title: titleOf(r.conversationId) })),
    conversations: summary.conversations.map((c) => ({
      id: c.conversationId, alias: ctx.aliases.conversationAliasOf(c.conversationId) ?? null, title: c.title, phase: c.phase, unread: c.unread,
    })),
  };
}

// Without a type filter the index's own unread walk serves the page: it reads only unread rows
// (a partial index), however many messages the agent ever received.
function unreadPage(ctx: ReadContext, agent: string, q: InboxQuery, now: number): { total: number; items: MessageSummary[] } {
  return ctx.reader.unread.unreadList(agent, { now, includeExpired: q.includeExpired, limit: q.limit, offset: q.offset });
}
