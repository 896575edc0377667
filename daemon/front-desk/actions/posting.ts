// Agents speak through the daemon: it builds the event (src/agent-events), checks the size
// limits, signs it with the agent's key and publishes it (logged durably first, then the outbox
// sends it). Three ways in: a reply in a conversation (threaded under a parent when given), a
// direct message to one agent, a discussion for a role or for everyone.

import { buildNoteReply, buildReply, buildRoot, checkOutgoingLimits } from "../../../src/agent-events/index.js";
import { replyDialect } from "../../../src/dialect.js";
import { DomainError, NotFoundError } from "../../../src/errors.js";
import type { Scope } from "../../../src/tags.js";
import type { AgentInfo, MessageType, NostrEvent, Priority, UnsignedEvent } from "../../../src/types.js";
import { defaultRecipients, withExpiration } from "../../../src/messaging/posting-rules.js";
import { ConflictError } from "./errors.js";
import type { ActionDeps } from "./action-deps.js";
import { loadConversation } from "../reads/read-context.js";
import type { PostResult } from "../shapes.js";

export interface MessageOptions {
  priority?: Priority;
  type?: MessageType;
  /** NIP-40: unix seconds from which the message is hidden. */
  expiresAt?: number;
}

export interface ReplyRequest extends MessageOptions {
  from: string;
  conversation: string;
  content: string;
  /** The message replied to (threads); the root when absent. */
  parent?: string;
  /** Agents addressed; default: the author of what is replied to (in a direct conversation, the other agent). */
  recipients?: string[];
}

export interface RootRequest extends MessageOptions {
  from: string;
  content: string;
  title?: string;
  recipients?: string[];
}

const nowSecs = (d: ActionDeps) => Math.floor(d.reads.now() / 1000);

/** Size limits checked, signed as `author`, published; answers once the event is durable and indexed. */
export async function publishAs(d: ActionDeps, author: AgentInfo, unsigned: UnsignedEvent): Promise<NostrEvent> {
  checkOutgoingLimits(unsigned, d.project.config.limits);
  // Answered once indexed too (read-your-writes): the alias in the answer, and the next read, come from the index.
  return d.commands.publish(author.pubkey, unsigned);
}

export function postResult(d: ActionDeps, ev: NostrEvent, conversationId: string, created: boolean): PostResult {
  const aliases = d.reads.aliases;
  return {
    conversationId, conversationAlias: aliases.conversationAliasOf(conversationId) ?? null, created, event: ev,
    alias: aliases.messageAliasOf(ev.id) ?? null,
  };
}

export async function reply(d: ActionDeps, req: ReplyRequest): Promise<PostResult> {
  const { aliases, agents } = d.reads;
  const from = agents.resolve(req.from);
  const conv = await loadConversation(d.reads, aliases.conversation(req.conversation));
  const alias = aliases.conversationAliasOf(conv.id) ?? conv.id;
  if (conv.status !== "open") throw new ConflictError(`conversation ${alias} is ${conv.status}: reopen it first (tenexd reopen)`);
  const root = conv.eventsById.get(conv.id)?.ev;
  if (!root) throw new ConflictError(`conversation ${alias} has no root event yet: it cannot be replied to`);
  let parent: NostrEvent | undefined;
  if (req.parent !== undefined) {
    parent = conv.eventsById.get(aliases.message(req.parent))?.ev;
    if (!parent) throw new NotFoundError(`message in conversation ${alias}`, req.parent);
  }
  const recipients = req.recipients !== undefined
    ? req.recipients.map((r) => agents.resolve(r).pubkey)
    : defaultRecipients(conv, from.pubkey, parent);
  if (req.recipients !== undefined && recipients.includes(from.pubkey)) throw new DomainError("cannot send a message to yourself", "self_message");
  // In the dialect of the message answered (the root when none is named), unless the project chose one.
  const build = replyDialect(d.project.info.dialect, parent ?? root) === "kind1" ? buildNoteReply : buildReply;
  const unsigned = build({
    root, parent, project: conv.project, phase: conv.phase.phase, content: req.content,
    recipients: recipients.filter((pk) => pk !== from.pubkey), createdAt: nowSecs(d),
    ...(req.priority ? { priority: req.priority } : {}), ...(req.type ? { type: req.type } : {}),
  });
  const ev = await publishAs(d, from, withExpiration(unsigned, req.expiresAt));
  return postResult(d, ev, conv.id, false);
}

/** A new conversation (kind 11) started by an agent. */
export async function startConversation(d: ActionDeps, req: RootRequest & { scope?: Scope }): Promise<PostResult> {
  const from = d.reads.agents.resolve(req.from);
  const recipients = (req.recipients ?? []).map((r) => d.reads.agents.resolve(r).pubkey);
  if (recipients.includes(from.pubkey)) throw new DomainError("cannot send a message to yourself", "self_message");
  const unsigned = buildRoot({
    project: d.project.coordinate, title: req.title ?? firstLine(req.content), content: req.content, recipients,
    createdAt: nowSecs(d), ...(req.scope ? { scope: req.scope } : {}), ...(req.expiresAt !== undefined ? { expiresAt: req.expiresAt } : {}),
    ...(req.priority ? { priority: req.priority } : {}), ...(req.type ? { type: req.type } : {}),
  });
  const ev = await publishAs(d, from, unsigned);
  return postResult(d, ev, ev.id, true);
}

const firstLine = (content: string) => (content.trimStart().split("\n", 1)[0] ?? "").slice(0, 80).trimEnd();
