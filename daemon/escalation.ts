// Backpressure and stalls, escalated to the project owner once (src/messaging/escalation.ts
// decides; this acts): an agent whose unread mail passes `limits.unreadThreshold` gets a new
// conversation addressed to the owner; a conversation whose turns loop or stall gets a reply
// addressed to the owner. Both are signed by the orchestrator; neither triggers an agent (the
// orchestrator's own messages that address no agent are recorded, not executed). Flags live in
// memory: after a restart a problem still present is escalated once more.

import { buildReply, buildRoot } from "../src/agent-events/index.js";
import { decideBackpressure, decideStallEscalation, escalationMessage } from "../src/messaging/escalation.js";
import type { RoutingProblems } from "../src/routing-health.js";
import type { AgentInfo, NostrEvent, Phase, UnsignedEvent } from "../src/types.js";

export interface StalledConversation {
  id: string;
  title: string;
  phase: Phase;
  root?: NostrEvent;
  problems: RoutingProblems;
}

export interface EscalatorDeps {
  coordinate: string;
  owner: string;
  agents: readonly AgentInfo[];
  threshold: number;
  unreadCount: (agent: string) => number;
  /** Conversations with an open turn, and their routing problems. */
  conversations: () => Promise<StalledConversation[]>;
  /** Signs as the orchestrator and publishes (logged first, like every agent event). */
  publish: (ev: UnsignedEvent) => Promise<unknown>;
  nowSecs: () => number;
}

export class Escalator {
  readonly flaggedAgents = new Set<string>();
  readonly flaggedConversations = new Set<string>();

  constructor(private readonly d: EscalatorDeps) {}

  async check(): Promise<void> {
    await this.checkBackpressure();
    await this.checkStalls();
  }

  private async checkBackpressure(): Promise<void> {
    const { d } = this;
    const observations = d.agents.map((a) => ({ agent: a.pubkey, unread: d.unreadCount(a.pubkey) }));
    // Cleared a fifth below the threshold, so an agent hovering there is not escalated again and again.
    const decision = decideBackpressure({ flagged: this.flaggedAgents }, observations, d.threshold, Math.floor(d.threshold * 0.8));
    for (const pubkey of decision.clear) this.flaggedAgents.delete(pubkey);
    for (const pubkey of decision.flag) {
      const agent = d.agents.find((a) => a.pubkey === pubkey)!;
      const unread = observations.find((o) => o.agent === pubkey)!.unread;
      const content = escalationMessage({ kind: "backpressure", agent, unread, threshold: d.threshold });
      await d.publish(buildRoot({
        project: d.coordinate, title: `Escalation: ${agent.slug} is behind on its inbox`, content,
        recipients: [d.owner], priority: "high", createdAt: d.nowSecs(),
      }));
      this.flaggedAgents.add(pubkey);
    }
  }

  private async checkStalls(): Promise<void> {
    const { d } = this;
    const open = await d.conversations();
    const seen = new Set(open.map((c) => c.id));
    // A flagged conversation whose turn closed is no longer stalled.
    for (const id of this.flaggedConversations) if (!seen.has(id)) this.flaggedConversations.delete(id);
    for (const c of open) {
      const decision = decideStallEscalation({ flagged: this.flaggedConversations }, c.id, c.problems);
      for (const id of decision.clear) this.flaggedConversations.delete(id);
      if (decision.flag.length === 0 || !c.root) continue;
      const content = escalationMessage({ kind: "stall", conversation: { id: c.id, title: c.title }, problems: c.problems, agents: d.agents });
      await d.publish(buildReply({
        root: c.root, project: d.coordinate, phase: c.phase, content, recipients: [d.owner], priority: "high", createdAt: d.nowSecs(),
      }));
      this.flaggedConversations.add(c.id);
    }
  }
}
