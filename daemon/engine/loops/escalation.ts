// Backpressure and stalls, escalated to the project owner once (src/messaging/escalation.ts
// decides; this acts): an agent whose unread mail passes `limits.unreadThreshold` gets a new
// conversation addressed to the owner; a conversation whose turns loop or stall gets a reply
// addressed to the owner. Both are signed by the orchestrator; neither triggers an agent (the
// orchestrator's own messages that address no agent are recorded, not executed). The flags are
// kept in `.tenex/escalation.json` (daemon/escalation-state.ts, which says why not in the logs):
// a problem told before a restart and still present is not told again; one that cleared, the
// clear saved, and relapsed is. Saved after each escalation is published, never before: a crash
// in between tells the owner twice rather than not at all.

import { buildReply, buildRoot } from "../../../src/agent-events/index.js";
import { decideBackpressure, decideStallEscalation, escalationMessage } from "../../../src/messaging/escalation.js";
import type { RoutingProblems } from "../../../src/routing-health.js";
import type { EscalationState } from "./escalation-state.js";
import type { AgentInfo, NostrEvent, Phase, UnsignedEvent } from "../../../src/types.js";

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
  /** The flags of the previous run and where to keep them; without it they live in memory only. */
  state?: EscalationState;
}

export class Escalator {
  readonly flaggedAgents = new Set<string>();
  readonly flaggedConversations = new Set<string>();

  /** The sets differ from what was last saved (a failed save is retried on the next check). */
  private dirty = false;

  constructor(private readonly d: EscalatorDeps) {
    const known = new Set(d.agents.map((a) => a.pubkey));
    // An agent no longer configured is never observed again, so its flag could never clear.
    for (const pk of d.state?.initial.agents ?? []) if (known.has(pk)) this.flaggedAgents.add(pk);
    for (const id of d.state?.initial.conversations ?? []) this.flaggedConversations.add(id);
  }

  async check(): Promise<void> {
    try {
      await this.checkBackpressure();
      await this.checkStalls();
    } finally {
      // Also when a publish failed: the clears made before it must not be lost to a stop.
      await this.save();
    }
  }

  private setFlag(set: Set<string>, key: string, on: boolean): void {
    if (set.has(key) === on) return;
    if (on) set.add(key);
    else set.delete(key);
    this.dirty = true;
  }

  private async save(): Promise<void> {
    if (!this.dirty || !this.d.state) return;
    // Cleared before the save: a change made while it is written marks the sets dirty again.
    this.dirty = false;
    try {
      await this.d.state.save({ agents: [...this.flaggedAgents], conversations: [...this.flaggedConversations] });
    } catch (e) {
      this.dirty = true;
      throw e;
    }
  }

  private async checkBackpressure(): Promise<void> {
    const { d } = this;
    const observations = d.agents.map((a) => ({ agent: a.pubkey, unread: d.unreadCount(a.pubkey) }));
    // Cleared a fifth below the threshold, so an agent hovering there is not escalated again and again.
    const decision = decideBackpressure({ flagged: this.flaggedAgents }, observations, d.threshold, Math.floor(d.threshold * 0.8));
    for (const pubkey of decision.clear) this.setFlag(this.flaggedAgents, pubkey, false);
    for (const pubkey of decision.flag) {
      const agent = d.agents.find((a) => a.pubkey === pubkey)!;
      const unread = observations.find((o) => o.agent === pubkey)!.unread;
      const content = escalationMessage({ kind: "backpressure", agent, unread, threshold: d.threshold });
      await d.publish(buildRoot({
        project: d.coordinate, title: `Escalation: ${agent.slug} is behind on its inbox`, content,
        recipients: [d.owner], priority: "high", createdAt: d.nowSecs(),
      }));
      this.setFlag(this.flaggedAgents, pubkey, true);
      // At once, not at the end of the check: each published escalation is saved before the next.
      await this.save();
    }
  }

  private async checkStalls(): Promise<void> {
    const { d } = this;
    const open = await d.conversations();
    const seen = new Set(open.map((c) => c.id));
    // A flagged conversation whose turn closed is no longer stalled.
    for (const id of this.flaggedConversations) if (!seen.has(id)) this.setFlag(this.flaggedConversations, id, false);
    for (const c of open) {
      const decision = decideStallEscalation({ flagged: this.flaggedConversations }, c.id, c.problems);
      for (const id of decision.clear) this.setFlag(this.flaggedConversations, id, false);
      if (decision.flag.length === 0 || !c.root) continue;
      const content = escalationMessage({ kind: "stall", conversation: { id: c.id, title: c.title }, problems: c.problems, agents: d.agents });
      await d.publish(buildReply({
        root: c.root, project: d.coordinate, phase: c.phase, content, recipients: [d.owner], priority: "high", createdAt: d.nowSecs(),
      }));
      this.setFlag(this.flaggedConversations, c.id, true);
      await this.save();
    }
  }
}
