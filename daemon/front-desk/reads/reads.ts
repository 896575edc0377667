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

// Every read first waits for the index to hold what is acknowledged (ReadContext.indexed): the
// index is written on its own thread, a moment after the acknowledgement.
export class Reads implements ReadApi {
  constructor(readonly ctx: ReadContext) {}

  async conversations(q: ConversationsQuery) {
    await this.ctx.indexed();
    return listConversations(this.ctx, q);
  }

  async conversation(ref: string, opts: { includeExpired?: boolean } = {}) {
    await this.ctx.indexed();
    return showConversation(this.ctx, ref, opts);
  }

  async auditTrail(ref: string) {
    await this.ctx.indexed();
    return auditTrail(this.ctx, ref);
  }

  async messages(q: MessagesQuery) {
    await this.ctx.indexed();
    return listMessages(this.ctx, q);
  }

  async message(ref: string) {
    await this.ctx.indexed();
    return showMessage(this.ctx, ref);
  }

  async inbox(agent: string, q: InboxQuery) {
    await this.ctx.indexed();
    return inbox(this.ctx, agent, q);
  }

  async routing(ref: string) {
    await this.ctx.indexed();
    return routingView(this.ctx, ref);
  }

  async context(agent: string, conversation: string, trigger?: string) {
    await this.ctx.indexed();
    return agentContext(this.ctx, agent, conversation, trigger);
  }

  async stats() {
    await this.ctx.indexed();
    return statsView(this.ctx);
  }
}
