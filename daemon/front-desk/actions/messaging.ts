// The messaging model on top of posting: a direct message goes to the open 1-on-1 conversation
// of the two agents (either may have started it) or starts one; a discussion is a new
// conversation for every agent of a role, or for all.

import { decideDirect, directKey, type DirectEntry } from "../../../src/messaging/direct.js";
import { DomainError } from "../../../src/errors.js";
import { scopeOf, type Scope } from "../../../src/tags.js";
import type { AgentInfo } from "../../../src/types.js";
import type { ActionDeps } from "./action-deps.js";
import { reply, startConversation, type MessageOptions } from "./posting.js";
import type { PostResult } from "../shapes.js";

export interface DirectRequest extends MessageOptions {
  from: string;
  to: string;
  content: string;
  /** Title of the conversation if this message starts one; default "<from> ↔ <to>". */
  title?: string;
}

export interface DiscussionRequest extends MessageOptions {
  from: string;
  scope: Scope;
  title?: string;
  content: string;
}

/** The pair's latest direct conversation: a candidate from the index, confirmed on its root. */
async function latestDirect(d: ActionDeps, a: AgentInfo, b: AgentInfo): Promise<DirectEntry | undefined> {
  for (const c of d.reads.reader.direct.candidatesFor(a.pubkey, b.pubkey)) {
    const conv = await d.reads.load(c.id);
    const root = conv?.eventsById.get(c.id)?.ev;
    if (conv && root && scopeOf(root.tags) === undefined) return { conversationId: conv.id, status: conv.status };
  }
  return undefined;
}

export function sendDirect(d: ActionDeps, req: DirectRequest): Promise<PostResult> {
  const from = d.reads.agents.resolve(req.from);
  const to = d.reads.agents.resolve(req.to);
  const key = directKey(from.pubkey, to.pubkey); // refuses a message to oneself
  const { priority, type, expiresAt } = req;
  const opts = { ...(priority ? { priority } : {}), ...(type ? { type } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
  return d.pairs.run(key, async () => {
    const entry = await latestDirect(d, from, to);
    const decision = decideDirect(new Map(entry ? [[key, entry]] : []), from.pubkey, to.pubkey);
    if (decision.kind === "reuse") {
      return reply(d, { from: from.slug, conversation: decision.conversationId, content: req.content, recipients: [to.slug], ...opts });
    }
    return startConversation(d, {
      from: from.slug, recipients: [to.slug], content: req.content, title: req.title ?? `${from.slug} ↔ ${to.slug}`, ...opts,
    });
  });
}

export function startDiscussion(d: ActionDeps, req: DiscussionRequest): Promise<PostResult> {
  const { scope } = req;
  if (scope.kind === "role" && !d.reads.agents.all.some((a) => a.role === scope.role)) {
    const roles = [...new Set(d.reads.agents.all.map((a) => a.role))].join(", ");
    throw new DomainError(`no agent has the role "${scope.role}" (the roles are ${roles})`, "unknown_role");
  }
  return startConversation(d, req);
}
