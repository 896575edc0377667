// Read tracking and a conversation's lifecycle, as log records: viewed (the agent's cursor:
// what it has seen), read (its read mark: unread is what comes after), ack (one message),
// close and reopen. Each is idempotent: doing it twice records it once.

import { decideAck, decideClose, decideCursor, decideRead, decideReopen, markPosition, type StatusChange } from "../../../src/conversation.js";
import { NotFoundError } from "../../../src/errors.js";
import { mutate, type ActionDeps } from "./action-deps.js";
import type { MarkResult } from "../shapes.js";

export interface MarkRequest {
  agent: string;
  conversation: string;
  /** Up to this log position; default: the last message. */
  upTo?: number;
}

function target(d: ActionDeps, req: MarkRequest) {
  return { id: d.reads.aliases.conversation(req.conversation), agent: d.reads.agents.resolve(req.agent) };
}

export function markViewed(d: ActionDeps, req: MarkRequest): Promise<MarkResult> {
  const { id, agent } = target(d, req);
  return mutate(d, id, (conv, now) => {
    const records = decideCursor(conv, { agent: agent.pubkey, seq: markPosition(conv, req.upTo) }, now);
    return { records, result: { conversationId: id, agent: agent.slug, changed: records.length > 0 } };
  });
}

export function markRead(d: ActionDeps, req: MarkRequest): Promise<MarkResult> {
  const { id, agent } = target(d, req);
  return mutate(d, id, (conv, now) => {
    const records = decideRead(conv, agent.pubkey, markPosition(conv, req.upTo), now);
    return { records, result: { conversationId: id, agent: agent.slug, changed: records.length > 0 } };
  });
}

export function ack(d: ActionDeps, req: { agent: string; message: string }): Promise<MarkResult & { messageId: string }> {
  const agent = d.reads.agents.resolve(req.agent);
  const messageId = d.reads.aliases.message(req.message);
  const where = d.reads.reader.aliases.messageOf(messageId);
  if (!where) throw new NotFoundError("message", req.message);
  return mutate(d, where.conversationId, (conv, now) => {
    const records = decideAck(conv, agent.pubkey, messageId, now);
    return { records, result: { conversationId: conv.id, agent: agent.slug, messageId, changed: records.length > 0 } };
  });
}

export interface StatusRequest {
  conversation: string;
  /** The agent closing or reopening it, when it is one (else the Director). */
  by?: string;
  reason?: string;
}

function setStatus(d: ActionDeps, req: StatusRequest, decide: typeof decideClose): Promise<MarkResult & { status: string }> {
  const id = d.reads.aliases.conversation(req.conversation);
  const by = req.by !== undefined ? d.reads.agents.resolve(req.by) : undefined;
  const change: StatusChange = { by: by?.pubkey ?? "director", ...(req.reason !== undefined ? { reason: req.reason } : {}) };
  return mutate(d, id, (conv, now) => {
    const records = decide(conv, change, now);
    return {
      records,
      result: { conversationId: id, agent: by?.slug ?? "director", changed: records.length > 0, status: records.length > 0 ? records[0]!.status : conv.status },
    };
  });
}

export const closeConversation = (d: ActionDeps, req: StatusRequest) => setStatus(d, req, decideClose);
export const reopenConversation = (d: ActionDeps, req: StatusRequest) => setStatus(d, req, decideReopen);
