// Kind 11 conversation roots published by agents: a new conversation, a direct message to
// another agent, or a discussion scoped to a role or to everyone (docs/contract.md).

import { DomainError } from "../errors.js";
import { KIND } from "../kinds.js";
import type { Scope } from "../tags.js";
import type { Phase, UnsignedEvent } from "../types.js";
import {
  messagingTags, pTags, requireProject, requireTimestamp, scopeTag, type MessagingOptions,
} from "./common.js";

export interface RootInput extends MessagingOptions {
  project: string;
  title: string;
  content: string;
  recipients?: readonly string[];
  /** Makes the conversation a discussion for a role or for all agents. */
  scope?: Scope;
  /** NIP-40: unix seconds after which the conversation is hidden. */
  expiresAt?: number;
  /** Every conversation starts in chat; an agent may say otherwise. */
  phase?: Phase;
  /** Unix seconds. */
  createdAt: number;
}

export function buildRoot(input: RootInput): UnsignedEvent {
  requireProject(input.project);
  requireTimestamp("createdAt", input.createdAt);
  const title = input.title.trim();
  if (title === "") throw new DomainError("a conversation needs a non-empty title", "empty_title");
  if (input.scope?.kind === "role" && input.scope.role.trim() === "") {
    throw new DomainError("a role scope needs a role name", "bad_scope");
  }
  const tags: string[][] = [["a", input.project], ["title", title], ...pTags(input.recipients)];
  tags.push(["phase", input.phase ?? "chat"]);
  if (input.scope) tags.push(scopeTag(input.scope));
  tags.push(...messagingTags(input));
  if (input.expiresAt !== undefined) {
    requireTimestamp("expiresAt", input.expiresAt);
    if (input.expiresAt <= input.createdAt) {
      throw new DomainError(`expiresAt ${input.expiresAt} is not after createdAt ${input.createdAt}`, "bad_expiration");
    }
    tags.push(["expiration", String(input.expiresAt)]);
  }
  return { kind: KIND.CONVERSATION_ROOT, created_at: input.createdAt, content: input.content, tags };
}
