// The ephemeral status heartbeat (kind 24010) TENEX clients read to list a project's agents
// online, with today's TENEX tag set (tenex/src/nostr_pub/project_status.rs): `["a", project]`,
// `["p", pk]` for the owner then each whitelisted user (each once: clients find their projects'
// status by `#p`), `["agent", pubkey, slug]` for each agent. Signed by the orchestrator key.

import { DomainError } from "../errors.js";
import { KIND } from "../kinds.js";
import type { UnsignedEvent } from "../types.js";
import { isHex64 } from "../types.js";
import { requireProject, requireTimestamp } from "./common.js";

export interface HeartbeatInput {
  project: string;
  /** The owner first, then the whitelisted users. */
  people?: readonly string[];
  agents: readonly { pubkey: string; slug: string }[];
  createdAt: number;
}

export function buildStatusHeartbeat(input: HeartbeatInput): UnsignedEvent {
  requireProject(input.project);
  requireTimestamp("createdAt", input.createdAt);
  const tags: string[][] = [["a", input.project]];
  for (const pk of new Set(input.people ?? [])) {
    if (!isHex64(pk)) throw new DomainError(`person ${pk}: pubkey is not 64 hex characters`, "bad_person");
    tags.push(["p", pk]);
  }
  for (const a of input.agents) {
    if (!isHex64(a.pubkey)) throw new DomainError(`agent ${a.slug}: pubkey is not 64 hex characters`, "bad_agent");
    tags.push(["agent", a.pubkey, a.slug]);
  }
  return { kind: KIND.STATUS, created_at: input.createdAt, content: "", tags };
}
