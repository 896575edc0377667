// Every read, behind one interface: served by the daemon's API and, when no daemon runs, by
// the CLI straight from the index (read-only). The typed client implements the same interface
// over HTTP, so a CLI command does not care which one answers.

import type { AgentInput } from "../../../src/agent-input.js";
import { agentContext, routingView, statsView } from "./agent-reads.js";
import { auditTrail, listConversations, showConversation, type ConversationsQuery } from "./conversation-reads.js";
import { inbox, listMessages, showMessage, type InboxQuery, type MessagesQuery } from "./message-reads.js";
import type { ReadContext } from "./read-context.js";
import type {
  AuditView, ConversationDetail, ConversationPage, InboxView, MessageDetail, MessageItem, Page, RoutingView, StatsView,
} from "../shapes.js";

export type { ConversationsQuery, InboxQuery, MessagesQuery };

export interface ReadApi {
  conversations(q: ConversationsQuery): Promise<ConversationPage>;
  conversation(ref: string, opts?: { includeExpired?: boolean }): Promise<ConversationDetail>;
  auditTrail(ref: string): Promise<AuditView>;
  messages(q: MessagesQuery): Promise<Page<MessageItem>>;
  message(ref: string): Promise<MessageDetail>;
  inbox(agent: string, q: InboxQuery): Promise<InboxView>;
  routing(ref: string): Promise<RoutingView>;
  context(agent: string, conversation: string, trigger?: string): Promise<AgentInput>;
  stats(): Promise<StatsView>;
}

export class Reads implements ReadApi {
  constructor(readonly ctx: ReadContext) {}

  conversations(q: ConversationsQuery) {
    return Promise.resolve(listConversations(this.ctx, q));
  }

  conversation(ref: string, opts: { includeExpired?: boolean } = {}) {
    return showConversation(this.ctx, ref, opts);
  }

  auditTrail(ref: string) {
    return auditTrail(this.ctx, ref);
  }

  messages(q: MessagesQuery) {
    return Promise.resolve(listMessages(this.ctx, q));
  }

  message(ref: string) {
    return showMessage(this.ctx, ref);
  }

  inbox(agent: string, q: InboxQuery) {
    return Promise.resolve(inbox(this.ctx, agent, q));
  }

  routing(ref: string) {
    return routingView(this.ctx, ref);
  }

  context(agent: string, conversation: string, trigger?: string) {
    return agentContext(this.ctx, agent, conversation, trigger);
  }

  stats() {
    return Promise.resolve(statsView(this.ctx));
  }
}
