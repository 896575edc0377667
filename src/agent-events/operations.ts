// The operations status (kind 24133, ephemeral) TENEX clients read to show who is working on a
// conversation, as today's TENEX publishes it (tenex/src/nostr_pub/operations_status.rs):
// `["e", conversation]`, `["P", human]` for each of the project's people, `["p", agent]` for
// each agent working on it now (none: the work ended), `["a", project]`; empty content.

import { KIND } from "../kinds.js";
import type { UnsignedEvent } from "../types.js";
import { isHex64 } from "../types.js";
import { DomainError } from "../errors.js";
import { requireProject, requireTimestamp } from "./common.js";

export interface OperationsStatusInput {
  project: string;
  conversationId: string;
  /** The project's people (owner and whitelisted users). */
  humans: readonly string[];
  /** The agents working on the conversation now; empty when none is. */
  working: readonly string[];
  createdAt: number;
}

export function buildOperationsStatus(input: OperationsStatusInput): UnsignedEvent {
  requireProject(input.project);
  requireTimestamp("createdAt", input.createdAt);
  for (const pk of [input.conversationId, ...input.humans, ...input.working]) {
    if (!isHex64(pk)) throw new DomainError(`"${pk}" is not 64 hex characters`, "bad_reference");
  }
  const tags: string[][] = [["e", input.conversationId]];
  for (const pk of new Set(input.humans)) tags.push(["P", pk]);
  for (const pk of new Set(input.working)) tags.push(["p", pk]);
  tags.push(["a", input.project]);
  return { kind: KIND.OPERATIONS_STATUS, created_at: input.createdAt, content: "", tags };
}
