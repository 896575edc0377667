// Backpressure and stall escalation: tell the project owner ONCE when an agent falls behind on
// its inbox or a conversation stops making progress, and once more only after it recovered and
// fell behind again. The caller keeps the flagged sets (one for agents, one for conversations)
// and applies each decision to them; this only decides.

import type { RoutingProblems } from "../routing-health.js";
import type { AgentInfo } from "../types.js";

export interface FlagState {
  flagged: ReadonlySet<string>;
}

export interface FlagDecision {
  /** Newly flagged: escalate each of these now. */
  flag: string[];
  /** Recovered: forget them, so a later relapse escalates again. */
  clear: string[];
}

/**
 * Flags an agent whose unread depth passes `threshold`, clears it once the depth is back at or
 * below `clearAtOrBelow` (default: the threshold). A lower clear level keeps an agent hovering
 * at the threshold from escalating on every other message. Agents not observed keep their flag.
 */
export function decideBackpressure(
  state: FlagState, observations: readonly { agent: string; unread: number }[], threshold: number,
  clearAtOrBelow = threshold,
): FlagDecision {
  const out: FlagDecision = { flag: [], clear: [] };
  for (const { agent, unread } of observations) {
    const flagged = state.flagged.has(agent);
    if (!flagged && unread > threshold) out.flag.push(agent);
    else if (flagged && unread <= clearAtOrBelow) out.clear.push(agent);
  }
  return out;
}

const hasProblem = (p: RoutingProblems) => p.stalled !== undefined || p.repeatedRouting !== undefined;

/** The same rule for one conversation, from detectRoutingProblems' output. */
export function decideStallEscalation(state: FlagState, convId: string, problems: RoutingProblems): FlagDecision {
  const flagged = state.flagged.has(convId);
  if (!flagged && hasProblem(problems)) return { flag: [convId], clear: [] };
  if (flagged && !hasProblem(problems)) return { flag: [], clear: [convId] };
  return { flag: [], clear: [] };
}

type Named = Pick<AgentInfo, "pubkey" | "slug">;

export type Escalation =
  | { kind: "backpressure"; agent: Named; unread: number; threshold: number }
  | {
    kind: "stall";
    conversation: { id: string; alias?: string; title?: string };
    problems: RoutingProblems;
    /** To name the agents of a repeated routing; unknown ones show as a short pubkey. */
    agents?: readonly Named[];
  };

const nameOf = (pubkey: string, agents: readonly Named[]) =>
  agents.find((a) => a.pubkey === pubkey)?.slug ?? pubkey.slice(0, 8);

function stallText(e: Extract<Escalation, { kind: "stall" }>): string {
  const { conversation: c, problems } = e;
  const label = `${c.alias ?? c.id.slice(0, 8)}${c.title ? ` "${c.title}"` : ""}`;
  const parts: string[] = [];
  if (problems.stalled) parts.push(`${problems.stalled.turnsWithoutProgress} turns in a row made no progress`);
  if (problems.repeatedRouting) {
    const r = problems.repeatedRouting;
    const who = r.agents.map((pk) => nameOf(pk, e.agents ?? [])).join(", ");
    parts.push(`the orchestrator routed ${r.phase} → ${who} ${r.count} times in a row`);
  }
  return `Conversation ${label} is not making progress: ${parts.join("; ")}. It needs a human decision.`;
}

/** The text sent to the project owner. */
export function escalationMessage(e: Escalation): string {
  if (e.kind === "stall") return stallText(e);
  return `Agent ${e.agent.slug} has ${e.unread} unread messages (threshold ${e.threshold}): ` +
    "it is not keeping up with its inbox. Check that it is running, or send it less.";
}
