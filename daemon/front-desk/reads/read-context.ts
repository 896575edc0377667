// What every read needs, the same in the daemon and in the CLI without a daemon: the read port
// (src/ports.ts: the index read-only, a way to load a conversation's aggregate, the clock), the
// project's agents and the limits.

import type { ConversationSummary, IndexReads, MessageSummary } from "../../../src/read-model.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { NotFoundError } from "../../../src/errors.js";
import type { EntityFetcher, ReadPort } from "../../../src/ports.js";
import type { Limits } from "../../config/index.js";
import type { AgentDirectory } from "./agent-directory.js";
import { Aliases, conversationAlias, messageAlias } from "./aliases.js";
import type { ConversationItem, MessageItem } from "../shapes.js";

export interface ReadContext {
  reader: IndexReads;
  aliases: Aliases;
  agents: AgentDirectory;
  limits: Pick<Limits, "unreadThreshold" | "repeatRoutingThreshold" | "stallThreshold">;
  load(id: string): Promise<Conversation | undefined>;
  /** Resolves once what is acknowledged so far is in the index (see ReadPort.indexed). */
  indexed(): Promise<void>;
  now(): number;
  /** Resolves `nostr:` references in agent contexts (the daemon's relays; none without a daemon). */
  entities?: EntityFetcher;
}

export function readContext(port: ReadPort, agents: AgentDirectory, limits: ReadContext["limits"]): ReadContext {
  return {
    reader: port.index, aliases: new Aliases(port.index.aliases), agents, limits,
    load: (id) => port.load(id), indexed: () => port.indexed?.() ?? Promise.resolve(), now: () => port.now(), ...(port.entities ? { entities: port.entities } : {}),
  };
}

export async function loadConversation(ctx: ReadContext, id: string): Promise<Conversation> {
  const conv = await ctx.load(id);
  if (!conv) throw new NotFoundError("conversation", id);
  return conv;
}

export const conversationItem = (r: ConversationSummary): ConversationItem => ({
  id: r.id, alias: conversationAlias(r.seq), title: r.title, phase: r.phase, status: r.status, archived: r.archived,
  rootKind: r.rootKind, createdAt: r.createdAt, updatedAt: r.updatedAt, messageCount: r.messageCount,
  lastMessageAt: r.lastMessageAt, execMs: r.execMs,
});

export function messageItem(ctx: ReadContext, r: MessageSummary): MessageItem {
  const recipients = ctx.reader.messages.recipientsOf(r.conversationId, r.n).map((x) => x.recipient);
  return {
    id: r.eventId, alias: messageAlias(r.seq, r.priority), conversationId: r.conversationId,
    conversationAlias: conversationAlias(r.conversationSeq), n: r.n, author: r.author, from: ctx.agents.label(r.author),
    kind: r.kind, type: r.type, priority: r.priority, createdAt: r.createdAt, expiration: r.expiration,
    parentId: r.parentId, preview: r.preview, size: r.size, recipients, to: recipients.map((p) => ctx.agents.label(p)),
  };
}
