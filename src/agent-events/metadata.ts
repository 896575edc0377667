// Conversation metadata (kind 513) as today's TENEX publishes it (crates/tenex-summarizer/src/
// publish.rs): `["e", conversation]`, `["title", …]`, `["summary", …]` and `["status-label", …]`
// when it has them, `["a", project]`; empty content. tenexd has no summary of its own (TENEX's
// comes from an LLM): it writes the title and the conversation's status (open, closed).

import { KIND } from "../kinds.js";
import type { UnsignedEvent } from "../types.js";
import { isHex64 } from "../types.js";
import { DomainError } from "../errors.js";
import { requireProject, requireTimestamp } from "./common.js";

export interface MetadataInput {
  project: string;
  conversationId: string;
  title: string;
  summary?: string;
  statusLabel: string;
  createdAt: number;
}

export function buildConversationMetadata(input: MetadataInput): UnsignedEvent {
  requireProject(input.project);
  requireTimestamp("createdAt", input.createdAt);
  if (!isHex64(input.conversationId)) throw new DomainError("conversationId must be 64 lowercase hex characters", "bad_reference");
  const tags: string[][] = [["e", input.conversationId]];
  if (input.title !== "") tags.push(["title", input.title]);
  if (input.summary) tags.push(["summary", input.summary]);
  if (input.statusLabel !== "") tags.push(["status-label", input.statusLabel]);
  tags.push(["a", input.project]);
  return { kind: KIND.METADATA, created_at: input.createdAt, content: "", tags };
}
