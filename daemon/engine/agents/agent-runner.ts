// Runs an agent on a trigger. Inside the conversation's queue: build its context, move its
// cursor, open an execution-time session. Outside it (a command can take minutes): run the
// backend. Then, in the queue again: commit what the output decided and, right after it, the
// agent's signed event (through the route, ingest/route.ts); once that is durable, the run's
// audit record. A failed run is recorded, never fatal.

import { randomUUID } from "node:crypto";
import { buildAgentMessages } from "../../../src/agent-messages.js";
import type { ContextCache } from "../../../src/agent-view.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { decideRead } from "../../../src/conversation.js";
import { inlineMessages } from "../../../src/entities.js";
import { decideExecStart, decideExecStop } from "../../../src/execution-time.js";
import type { Clock, EntityFetcher } from "../../../src/ports.js";
import type { NewRecord } from "../../../src/records.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "../../../src/types.js";
import type { CommandBackend, LoadedAgent } from "../../config/index.js";
import type { CommandAgent } from "./command-agents.js";
import type { ConversationQueues } from "../ingest/conversation-queues.js";
import type { Logger } from "../../logger.js";
import type { InboundRoute } from "../ingest/route.js";
import type { ConversationStore } from "../store/conversation-store.js";
import { buildAgentInput } from "../../../src/agent-input.js";
import { planOutput } from "../../../src/output-plan.js";
import type { AgentOutput } from "../../../src/agent-output.js";
import { runCommand, startCommand, type CommandResult, type CommandSpec, type StartedCommand } from "./command-backend.js";
import type { ActiveRun as RunView, FinishedRun, RunFailure } from "../../../src/daemon-status.js";
import type { ActiveRun, ActiveRuns, StopMark } from "./active-runs.js";
import { PublishRefusedError } from "../../../src/errors.js";
import { LatencyWindow } from "../../../src/latency-window.js";
import type { RouteTimes } from "../ingest/route.js";
import { defaultSpawner, type SpawnerChoice } from "../../../adapters/spawn/spawner-choice.js";

/**
 * The way from a trigger to its agent's process, step by step: checked, staged in its
 * conversation, durable (the route's, RouteTimes), the context built (in the conversation's
 * queue), the input handed to the process; `total` from the route to there, the sum of those.
 * `spawn` is the spawn's own time, not one of them: a trigger's process is started while it is
 * made durable (AgentRunner.prepare), inside the `durable` step; a run without route times, or
 * a program that could not start early, spawns in the `input` step.
 */
export const TRIGGER_STEPS = ["checked", "staged", "durable", "context", "input", "total", "spawn"] as const;
/** From the agent's process ending to its event durable in the log (parsed, planned, signed, staged); the outbox times the relays. */
export const ANSWER_STEPS = ["durable"] as const;

export interface RunnerDeps {
  project: ProjectInfo;
  agents: readonly LoadedAgent[];
  orchestrator: AgentInfo;
  projectDir: string;
  store: ConversationStore;
  queues: ConversationQueues;
  route: InboundRoute;
  clock: Clock;
  logger: Logger;
  cache: ContextCache;
  turnTimeoutMs: number;
  nameOf: (pubkey: string) => string;
  signal: AbortSignal;
  /** Resolves `nostr:` references in the context (outside the conversation's queue). */
  entities?: EntityFetcher;
  /** The runs under way (who works where; what a stop request ends). */
  active?: ActiveRuns;
  /** How programs are started (default: this process's choice, adapters/spawn/spawner-choice.ts). */
  spawner?: SpawnerChoice;
  /** Told when a run starts and when it ends (the dashboard's live feed). */
  onRun?: (state: "start" | "end", run: RunView | FinishedRun) => void;
}

interface RunError {
  kind: string;
  message: string;
}

/** The run's audit record (closing its pending run) and the end of its execution-time session. */
function runRecords(conv: Conversation, agent: AgentInfo, trigger: NostrEvent, durationMs: number, error: RunError | undefined, now: number, stoppedBy?: StopMark): NewRecord[] {
  const run: NewRecord = {
    t: "agent_run", at: now, agent: agent.pubkey, trigger: trigger.id, outcome: stoppedBy ? "stopped" : error ? "failed" : "ok", durationMs,
    ...(error ? { error: { kind: error.kind, message: error.message } } : {}),
    ...(stoppedBy ? { stoppedBy } : {}),
  };
  return [run, ...decideExecStop(conv.exec, now)];
}

export class AgentRunner {
  private readonly inFlight = new Set<Promise<void>>();
  readonly stats = { runs: 0, failures: 0, running: 0, lastFailure: undefined as RunFailure | undefined };
  /** Runs under way, by run id: what the status shows, and the handle that stops it. */
  private readonly runs = new Map<string, { view: RunView; handle: ActiveRun }>();
  /** Each agent's last finished run (by slug). */
  private readonly last = new Map<string, FinishedRun>();
  /** How long the last runs' steps took (the status shows them). */
  readonly latency = { trigger: new LatencyWindow(TRIGGER_STEPS), answer: new LatencyWindow(ANSWER_STEPS) };
  /** Processes started for triggers not yet durable (prepare), by trigger and agent, with their spawn's time. */
  private readonly early = new Map<string, Early>();
  /** How its programs are started, and why not natively when not (the status shows it). */
  readonly spawner: SpawnerChoice;

  constructor(private readonly d: RunnerDeps) {
    this.spawner = d.spawner ?? defaultSpawner();
    d.signal.addEventListener("abort", () => {
      for (const e of this.early.values()) e.command.cancel();
      this.early.clear();
    }, { once: true });
  }

  /**
   * A trigger is staged, not yet durable: its agent's process is started now, so that the spawn
   * (~0.5 ms of this process's main thread with posix_spawn, ~2 ms with a fork) and the program's
   * own start after it run while the log syncs the trigger. The program is handed nothing until
   * `trigger`, once the trigger is durable (docs/agent-protocol.md); `abandon` stops it if it
   * never is.
   */
  prepare(ev: NostrEvent, agent: CommandAgent): void {
    const key = earlyKey(ev.id, agent.pubkey);
    if (this.d.signal.aborted || this.early.has(key)) return;
    const at = performance.now();
    const command = startCommand(this.specOf(agent.backend), { spawn: this.spawner.spawn });
    this.early.set(key, { command, spawnMs: performance.now() - at });
  }

  /** The trigger will not be durable (its append failed): what `prepare` started gets no input and is stopped. */
  abandon(ev: NostrEvent, agent: CommandAgent): void {
    const key = earlyKey(ev.id, agent.pubkey);
    this.early.get(key)?.command.cancel();
    this.early.delete(key);
  }

  /** Starts a run in the background; its outcome is recorded, never thrown. */
  trigger(conversationId: string, agent: CommandAgent, ev: NostrEvent, times?: RouteTimes): void {
    const key = earlyKey(ev.id, agent.pubkey);
    const early = this.early.get(key);
    this.early.delete(key);
    const p = this.run(conversationId, agent, ev, times, early)
      .catch((err: unknown) => this.fail(conversationId, agent, "internal", err instanceof Error ? err.message : String(err)))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** The runs under way, oldest first. */
  running(): RunView[] {
    return [...this.runs.values()].map((r) => ({ ...r.view }));
  }

  lastRuns(): Record<string, FinishedRun> {
    return Object.fromEntries(this.last);
  }

  /**
   * Stops `agent`'s runs (on `conversationId` only, when given) at `mark.by`'s request (the
   * owner, from the dashboard): as a stop request does, their process groups are killed and each
   * run is recorded as stopped.
   */
  stop(agent: string, mark: StopMark, conversationId?: string): RunView[] {
    const stopped: RunView[] = [];
    for (const { view, handle } of this.runs.values()) {
      if (handle.agent !== agent || handle.stoppedBy || (conversationId !== undefined && view.conversationId !== conversationId)) continue;
      handle.stoppedBy = mark;
      handle.controller.abort();
      stopped.push({ ...view });
    }
    return stopped;
  }

  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async run(convId: string, agent: CommandAgent, trigger: NostrEvent, times: RouteTimes | undefined, early: Early | undefined): Promise<void> {
    // In memory for the whole run: its execution-time session is open while the command runs.
    this.d.store.pin(convId);
    // Every run can be stopped; the shared register (when there is one) also tells who works where.
    const active = this.d.active?.open(convId, agent.pubkey) ?? { conversationId: convId, agent: agent.pubkey, controller: new AbortController() };
    try {
      await this.runPinned(convId, agent, agent.backend, trigger, active, times, early);
    } finally {
      // A run that ended before its program was given its input (a vanished conversation) stops it.
      early?.command.cancel();
      this.d.active?.close(active);
      this.d.store.unpin(convId);
    }
  }

  private specOf(backend: CommandBackend): CommandSpec {
    return { command: backend.command, cwd: this.d.projectDir, timeoutMs: backend.timeoutSeconds * 1000 };
  }

  private async runPinned(
    convId: string, agent: CommandAgent, backend: CommandBackend, trigger: NostrEvent, active: ActiveRun, times: RouteTimes | undefined, early: Early | undefined,
  ): Promise<void> {
    const built = await this.d.queues.run(convId, async () => {
      const conv = await this.mustGet(convId);
      const now = this.d.clock.now();
      const context = buildAgentMessages(conv, agent, trigger, {
        nameOf: this.d.nameOf, isAgent: (pk) => this.d.agents.some((a) => a.pubkey === pk), cache: this.d.cache,
      });
      const { cursor } = context;
      this.d.store.commit(conv, [
        { t: "cursor", at: now, agent: cursor.agent, seq: cursor.seq, ...(cursor.session !== undefined ? { session: cursor.session } : {}) },
        // What it is given to answer, it has read: its inbox must not grow with every run.
        ...decideRead(conv, agent.pubkey, cursor.seq, now),
        ...decideExecStart(conv.exec, now),
      ]);
      return buildAgentInput({ agent, project: this.d.project, conversation: conv, trigger, context, nameOf: this.d.nameOf });
    }, true);
    // References are fetched outside the queue: the conversation's other events need not wait.
    const input = this.d.entities ? { ...built, messages: await inlineMessages(built.messages, this.d.entities) } : built;
    const contextAt = performance.now();

    this.stats.runs++;
    this.stats.running++;
    const started = this.d.clock.now();
    const view: RunView = { runId: randomUUID(), agent: agent.slug, conversationId: convId, startedAt: started };
    this.runs.set(view.runId, { view, handle: active });
    this.d.onRun?.("start", view);
    let result: CommandResult;
    try {
      // The process is spawned (unless it was early) and given its input before runCommand returns its promise.
      const running = runCommand(this.specOf(backend), input, { signal: AbortSignal.any([this.d.signal, active.controller.signal]), spawn: this.spawner.spawn }, early?.command);
      // Runs resumed at start, or started by the daemon's own events, have no route times: not counted.
      if (times) {
        const handedAt = performance.now();
        this.latency.trigger.add(triggerSteps(times, contextAt, handedAt, early?.spawnMs ?? handedAt - contextAt));
      }
      result = await running;
    } finally {
      this.stats.running--;
      this.runs.delete(view.runId);
    }
    const durationMs = this.d.clock.now() - started;
    let error: RunError | undefined;
    try {
      const stoppedBy = active.stoppedBy;
      if (stoppedBy && !result.ok) {
        // Stopped by one of the project's people: recorded as such, not as a failure; nothing else changes.
        const request = stoppedBy.eventId ? `request ${stoppedBy.eventId.slice(0, 12)}… from ` : "";
        error = { kind: "stopped", message: `stopped by ${request}${stoppedBy.by.slice(0, 12)}…: ${result.error.message}` };
        this.d.logger.info("agent run stopped", { conversation: convId, agent: agent.slug, by: stoppedBy.by, ...(stoppedBy.eventId ? { request: stoppedBy.eventId } : {}) });
        const stopped = error;
        await this.d.route.inConversation(convId, (conv, now) => ({ records: runRecords(conv, agent, trigger, durationMs, stopped, now, stoppedBy), result: undefined }));
        return;
      }
      const ended = performance.now();
      const answered = result.ok ? await this.answer(convId, agent, trigger, result.output, durationMs) : { error: result.error, recorded: false };
      if (answered.published) this.latency.answer.add({ durable: performance.now() - ended });
      error = answered.error;
      if (error) this.fail(convId, agent, error.kind, error.message);
      if (!answered.recorded) {
        const failed = error;
        await this.d.route.inConversation(convId, (conv, now) => ({ records: runRecords(conv, agent, trigger, durationMs, failed, now), result: undefined }));
      }
    } finally {
      const outcome = error === undefined ? "ok" : error.kind === "stopped" ? "stopped" : "failed";
      const ended: FinishedRun = { ...view, endedAt: this.d.clock.now(), outcome, ...(error ? { error: error.message } : {}) };
      this.last.set(agent.slug, ended);
      this.d.onRun?.("end", ended);
    }
  }

  /**
   * In the conversation's queue once: what the output decided and, when it says something, the
   * agent's event, signed and taken in right after those records (durable in the log before it
   * goes out). The run's own record comes after that event is durable: a crash in between runs
   * the agent again (at-least-once) rather than losing its answer. An output that publishes
   * nothing has its run recorded in the same task.
   */
  private async answer(
    convId: string, agent: CommandAgent, trigger: NostrEvent, output: AgentOutput, durationMs: number,
  ): Promise<{ error?: RunError; recorded: boolean; published?: boolean }> {
    try {
      const { result: plan } = await this.d.route.inConversation(convId, (conv, now) => {
        const planned = planOutput(output, {
          conv, agent, trigger, agents: this.d.agents, orchestrator: this.d.orchestrator,
          turnTimeoutMs: this.d.turnTimeoutMs, netTimeSecs: durationMs / 1000, now, turnId: randomUUID(), dialect: this.d.project.dialect,
        });
        if (planned.event) return { records: planned.records, publish: { author: agent.pubkey, event: planned.event }, result: planned };
        return { records: [...planned.records, ...runRecords(conv, agent, trigger, durationMs, undefined, now)], result: planned };
      }, true);
      if (plan.refused) this.d.logger.warn("phase change refused", { conversation: convId, agent: agent.slug, reason: plan.refused });
      return { recorded: plan.event === undefined, published: plan.event !== undefined };
    } catch (err) {
      if (!(err instanceof PublishRefusedError)) throw err;
      return { error: { kind: "publish_refused", message: err.message }, recorded: false };
    }
  }

  private async mustGet(convId: string): Promise<Conversation> {
    const conv = await this.d.store.get(convId);
    if (!conv) throw new Error(`conversation ${convId} vanished`);
    return conv;
  }

  private fail(conversationId: string, agent: AgentInfo, kind: string, message: string): void {
    this.stats.failures++;
    this.stats.lastFailure = { at: this.d.clock.now(), agent: agent.slug, conversationId, kind, message };
    this.d.logger.warn("agent run failed", { conversation: conversationId, agent: agent.slug, kind, message });
  }
}

type Early = { command: StartedCommand; spawnMs: number };

const earlyKey = (triggerId: string, agent: string) => `${triggerId}:${agent}`;

/** The durations of a run's steps from the route's times and the runner's. */
function triggerSteps(t: RouteTimes, contextAt: number, handedAt: number, spawnMs: number): Record<(typeof TRIGGER_STEPS)[number], number> {
  return {
    checked: t.checked - t.arrived,
    staged: t.staged - t.checked,
    durable: t.durable - t.staged,
    context: contextAt - t.durable,
    input: handedAt - contextAt,
    total: handedAt - t.arrived,
    spawn: spawnMs,
  };
}
