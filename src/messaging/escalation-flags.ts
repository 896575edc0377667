// What the escalator has already told the owner and not seen clear yet, in the form kept across
// restarts (daemon/escalation-state.ts writes it to `.tenex/escalation.json`). Without it every
// restart escalated a problem that was still present once more (one new conversation per
// behind agent per restart). Pure: the daemon reads and writes the file, this shapes and checks it.

import { isHex64 } from "../types.js";

export interface EscalationFlags {
  /** Pubkeys of agents escalated for backpressure, not yet back under the clear level. */
  agents: string[];
  /** Ids of conversations escalated for a stall or loop, whose turn has not closed yet. */
  conversations: string[];
}

const VERSION = 1;

export const noEscalationFlags = (): EscalationFlags => ({ agents: [], conversations: [] });

export function serializeEscalationFlags(f: EscalationFlags): unknown {
  // Sorted, so the same sets always give the same file.
  return { v: VERSION, agents: [...f.agents].sort(), conversations: [...f.conversations].sort() };
}

const ids = (x: unknown): string[] | undefined =>
  Array.isArray(x) && x.every(isHex64) ? (x as string[]) : undefined;

/**
 * The flags from a stored file, or undefined when it is not one this version wrote. The caller
 * then starts with none: at worst a still-present problem is escalated once more, never silenced.
 */
export function parseEscalationFlags(raw: unknown): EscalationFlags | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (r.v !== VERSION) return undefined;
  const agents = ids(r.agents);
  const conversations = ids(r.conversations);
  if (!agents || !conversations) return undefined;
  return { agents, conversations };
}
