// Shared pieces of the events agents publish: references to other events, tag writers for the
// messaging extensions (docs/contract.md), and the checks that keep a malformed reference from being
// signed: a signed event cannot be taken back, so a bad id must fail here, not at the relay.

import { parseProjectCoordinate } from "../coordinate.js";
import { DomainError } from "../errors.js";
import type { Scope } from "../tags.js";
import type { MessageType, NostrEvent, Priority } from "../types.js";
import { isHex64 } from "../types.js";

/** What a reply needs to know about the event it refers to: a full event will do. */
export type EventRef = Pick<NostrEvent, "id" | "kind" | "pubkey">;

/** Messaging extension tags any agent event may carry. */
export interface MessagingOptions {
  priority?: Priority;
  type?: MessageType;
}

export function requireProject(project: string): void {
  if (!parseProjectCoordinate(project)) {
    throw new DomainError(`project must be a coordinate 31933:<owner-pubkey>:<d>, got "${project}"`, "bad_project");
  }
}

export function requireRef(name: string, ref: EventRef): void {
  if (!isHex64(ref.id)) throw new DomainError(`${name}.id must be 64 lowercase hex characters`, "bad_reference");
  if (!isHex64(ref.pubkey)) throw new DomainError(`${name}.pubkey must be 64 lowercase hex characters`, "bad_reference");
  if (!Number.isInteger(ref.kind) || ref.kind < 0) {
    throw new DomainError(`${name}.kind must be a non-negative integer, got ${ref.kind}`, "bad_reference");
  }
}

export function requireTimestamp(name: string, secs: number): void {
  if (!Number.isInteger(secs) || secs < 0) {
    throw new DomainError(`${name} must be whole unix seconds, got ${secs}`, "bad_timestamp");
  }
}

/** `p` tags for the addressed pubkeys, in order, each once. */
export function pTags(recipients: readonly string[] = []): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const pk of recipients) {
    if (!isHex64(pk)) throw new DomainError(`recipient "${pk}" is not a 64-hex pubkey`, "bad_recipient");
    if (seen.has(pk)) continue;
    seen.add(pk);
    out.push(["p", pk]);
  }
  return out;
}

export function messagingTags(opts: MessagingOptions): string[][] {
  const out: string[][] = [];
  if (opts.priority !== undefined) out.push(["priority", opts.priority]);
  if (opts.type !== undefined) out.push(["type", opts.type]);
  return out;
}

export const scopeTag = (scope: Scope): string[] =>
  scope.kind === "all" ? ["scope", "all"] : ["scope", "role", scope.role];
