// A model of how TENEX's ConversationManager (pablof7z/tenex 9e26e63) writes orchestrator turns,
// agent states and the rest of a conversation file, so fixtures have TENEX's exact shapes and
// quirks. Written from reading its code, not copied from it:
// - startOrchestratorTurn: `turn-<Date.now()>-<9 base36 chars>`, isCompleted false; an "END"
//   routing is a turn like any other, with agents ["END"], that never completes;
// - addCompletionToTurn (the complete() tool, BEFORE the event is signed): the most recent
//   incomplete turn that includes the agent gets {agent, summary || response, Date.now()};
// - buildOrchestratorRoutingContext (the completion event wakes the orchestrator): EVERY
//   incomplete turn that includes the agent gets {agent, event.content, event.created_at}, so a
//   completion in a turn with two agents is recorded twice, and may land in older turns too;
//   either way a turn whose agents all completed becomes isCompleted;
// - updatePhase (the orchestrator changing phase): a transition with agentPubkey, agentName;
// - buildAgentMessages: the agent's lastProcessedMessageIndex becomes the history length. The
//   orchestrator never goes through it, so TENEX keeps no state for it;
// - addEvent: metadata.summary and last_user_message follow the latest user message;
// - FileSystemAdapter.save: the whole conversation, history as NDKEvent.serialize(true, true),
//   agentStates as a plain object of {lastProcessedMessageIndex, claudeSessionId}.

import type { NostrEvent } from "../../src/types.js";
import type { TestKey } from "./events.js";
import { serialize, type TenexFile } from "./tenex-fixture.js";

type Turn = NonNullable<TenexFile["orchestratorTurns"]>[number];

export class TenexModel {
  readonly history: NostrEvent[] = [];
  readonly turns: Turn[] = [];
  readonly transitions: TenexFile["phaseTransitions"] = [];
  readonly states: Record<string, { lastProcessedMessageIndex: number; claudeSessionId?: string }> = {};
  phase = "chat";
  private summary = "";
  private lastUserMessage: string | undefined;
  private serial = 0;
  private execSeconds = 0;
  private lastUpdated = 0;

  constructor(readonly id: string, readonly title: string, private readonly owner: string) {}

  /** An event reaches TENEX (createConversation for the first, then addEvent). */
  add(ev: NostrEvent): void {
    const first = this.history.length === 0;
    this.history.push(ev);
    if (ev.pubkey !== this.owner || !ev.content) return;
    this.summary = ev.content;
    if (!first) this.lastUserMessage = ev.content;
  }

  /** The orchestrator routes (RoutingBackend): a turn, and a phase change when the phase differs. */
  route(agents: string[], phase: string, reason: string, atMs: number, orchestrator: TestKey): string {
    const turnId = `turn-${atMs}-${(++this.serial).toString(36).padStart(9, "k")}`;
    this.turns.push({ turnId, timestamp: atMs, phase, agents, completions: [], reason, isCompleted: false });
    if (phase !== this.phase) {
      this.transitions.push({
        from: this.phase, to: phase, message: `Phase transition: ${reason}`, timestamp: atMs + 1,
        agentPubkey: orchestrator.pubkey, agentName: "Orchestrator", reason,
      });
      this.phase = phase;
    }
    return turnId;
  }

  /** An agent's context is built for a run (buildAgentMessages). */
  run(slug: string, session?: string): void {
    const claudeSessionId = session ?? this.states[slug]?.claudeSessionId;
    this.states[slug] = { lastProcessedMessageIndex: this.history.length, ...(claudeSessionId ? { claudeSessionId } : {}) };
  }

  /** complete() was called: noted before its event exists (addCompletionToTurn). */
  noteCompletion(slug: string, message: string, atMs: number): void {
    const turn = [...this.turns].reverse().find((t) => !t.isCompleted && t.agents.includes(slug));
    if (!turn) return;
    turn.completions.push({ agent: slug, message, timestamp: atMs });
    this.settle(turn);
  }

  /** A completion event wakes the orchestrator (buildOrchestratorRoutingContext). */
  wake(ev: NostrEvent, slug: string): void {
    if (!ev.tags.some((t) => t[0] === "tool" && t[1] === "complete") || !ev.content) return;
    for (const turn of this.turns) {
      if (turn.isCompleted || !turn.agents.includes(slug)) continue;
      turn.completions.push({ agent: slug, message: ev.content, timestamp: ev.created_at });
      this.settle(turn);
    }
  }

  work(seconds: number, atMs: number): void {
    this.execSeconds += seconds;
    this.lastUpdated = atMs;
  }

  private settle(turn: Turn): void {
    const done = new Set(turn.completions.map((c) => c.agent));
    if (turn.agents.every((a) => done.has(a))) turn.isCompleted = true;
  }

  /** The file FileSystemAdapter.save writes now (a deep copy: the model goes on changing). */
  file(): TenexFile {
    return JSON.parse(JSON.stringify({
      id: this.id, title: this.title, phase: this.phase,
      history: this.history.map((e) => serialize(e)),
      agentStates: this.states,
      phaseStartedAt: this.transitions.at(-1)?.timestamp ?? this.history[0]!.created_at * 1000,
      metadata: { summary: this.summary, ...(this.lastUserMessage !== undefined ? { last_user_message: this.lastUserMessage } : {}) },
      phaseTransitions: this.transitions,
      orchestratorTurns: this.turns,
      executionTime: { totalSeconds: this.execSeconds, isActive: false, lastUpdated: this.lastUpdated },
    })) as TenexFile;
  }
}
