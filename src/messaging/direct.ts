// Direct (1-on-1) conversations between two agents: one open conversation per pair, found from
// either side. The registry is the index's (keyed by directKey); this only decides.

import { DomainError } from "../errors.js";
import type { ConversationStatus } from "../conversation-state.js";

export interface DirectEntry {
  conversationId: string;
  status: ConversationStatus;
}

export type DirectRegistry = ReadonlyMap<string, DirectEntry>;

export type DirectDecision = { kind: "reuse"; conversationId: string } | { kind: "create" };

function refuseSelf(a: string, b: string): void {
  if (a === b) throw new DomainError("cannot send a message to yourself", "self_message");
}

/** The pair's key, the same whichever of the two sends. */
export function directKey(a: string, b: string): string {
  refuseSelf(a, b);
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

/**
 * Reuse the pair's conversation while it is open. Once closed (or completed) the next message
 * starts a new one: reopening old work by accident would drag its context into a new exchange.
 */
export function decideDirect(registry: DirectRegistry, from: string, to: string): DirectDecision {
  const entry = registry.get(directKey(from, to));
  return entry?.status === "open" ? { kind: "reuse", conversationId: entry.conversationId } : { kind: "create" };
}
