// Whether an inbound event, before it is checked, may set one of the daemon's own agents to work:
// it takes the route's priority lane (inline signature check, first free slot of the
// conversation queues: docs/performance.md, "From a message to its agent"). A hint, not the
// decision (src/runs.ts decides once the event is checked and folded): a wrong guess costs only
// its place in those queues, never a check or the order of a conversation's events.

import { isConversationKind } from "./kinds.js";
import type { NostrEvent } from "./types.js";

/**
 * `runnable`: the pubkeys of the agents the daemon runs itself; `orchestrator`: the orchestrator's
 * pubkey when the daemon runs it (then any conversation event may wake it).
 */
export function mayTrigger(ev: Pick<NostrEvent, "kind" | "tags">, runnable: { has(pubkey: string): boolean }, orchestrator?: string): boolean {
  if (!isConversationKind(ev.kind)) return false;
  if (orchestrator !== undefined && runnable.has(orchestrator)) return true;
  for (const t of ev.tags) if (t[0] === "p" && typeof t[1] === "string" && runnable.has(t[1])) return true;
  return false;
}
