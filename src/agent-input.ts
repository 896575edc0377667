// The JSON document an agent program reads on stdin, once per trigger (docs/agent-protocol.md).
// Versioned: a field's meaning never changes within a version; new fields may be added.

import type { AgentContext, AgentMessage } from "./agent-messages.js";
import type { Conversation } from "./conversation-state.js";
import { TRANSITIONS } from "./phases.js";
import { buildRoutingContext, type RoutingContext } from "./routing-context.js";
import type { AgentInfo, NostrEvent, Phase, ProjectInfo } from "./types.js";

export const AGENT_INPUT_VERSION = 1;

/** Another agent of the project, as an agent program sees it. */
export interface PeerAgent {
  slug: string;
  name: string;
  role: string;
}

export interface AgentInput {
  version: typeof AGENT_INPUT_VERSION;
  /** The agent being run. */
  agent: PeerAgent & { pubkey: string; orchestrator: boolean };
  conversation: { id: string; title: string; phase: Phase; project: string };
  /** The event the agent answers. */
  trigger: {
    id: string;
    pubkey: string;
    authorName: string;
    kind: number;
    content: string;
    tags: string[][];
    created_at: number;
  };
  /** The agent's context (buildAgentMessages): history, away block, then the trigger. */
  messages: readonly AgentMessage[];
  /** The orchestrator's routing context; absent for other agents. */
  routing?: RoutingContext;
  /** Every other agent of the project: who can be routed to (orchestrator) or p-tagged (recipients). */
  agents: PeerAgent[];
  /** Phases a phase change or route may name: the current one (a handoff) first, then the legal transitions. */
  allowedPhases: Phase[];
  /** The claude session to resume, when there is one. */
  session?: string;
}

export interface AgentInputSource {
  agent: AgentInfo;
  project: ProjectInfo;
  conversation: Conversation;
  trigger: NostrEvent;
  /** buildAgentMessages' result for this agent and trigger. */
  context: AgentContext;
  /** Display name of any author (agents and users). */
  nameOf(pubkey: string): string;
}

const peer = (a: AgentInfo): PeerAgent => ({ slug: a.slug, name: a.name, role: a.role });

export function buildAgentInput(src: AgentInputSource): AgentInput {
  const { agent, project, conversation: conv, trigger, context } = src;
  const phase = conv.phase.phase;
  const slugs = new Map(project.agents.map((a) => [a.pubkey, a.slug]));
  // The routing context names agents by slug, the name the orchestrator routes with.
  const slugOf = (pubkey: string) => slugs.get(pubkey) ?? pubkey;
  return {
    version: AGENT_INPUT_VERSION,
    agent: { ...peer(agent), pubkey: agent.pubkey, orchestrator: agent.isOrchestrator },
    conversation: { id: conv.id, title: conv.title, phase, project: conv.project },
    trigger: {
      id: trigger.id,
      pubkey: trigger.pubkey,
      authorName: src.nameOf(trigger.pubkey),
      kind: trigger.kind,
      content: trigger.content,
      tags: trigger.tags,
      created_at: trigger.created_at,
    },
    messages: context.messages,
    ...(agent.isOrchestrator ? { routing: buildRoutingContext(conv, slugOf) } : {}),
    agents: project.agents.filter((a) => a.pubkey !== agent.pubkey).map(peer),
    allowedPhases: [phase, ...TRANSITIONS[phase]],
    ...(context.sessionId !== undefined ? { session: context.sessionId } : {}),
  };
}
