// The Director's view of a running daemon (src/daemon-status.ts), filled from the engine's parts:
// one plain object, the same for the API, the CLI's `status` and the tests. Cheap to build:
// counters, in-memory state, a few index lookups (one row each) and the damage records in
// .tenex/quarantine/ (a directory listing), no log reads. Stuck turns need the conversations
// with an open turn, which are live in memory already; that part is async (directorStatus).

import { listDamage } from "../../adapters/fs-log/damage-records.js";
import type { FileConversationLog } from "../../adapters/fs-log/index.js";
import type { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import type { EmbeddedRelay } from "../../adapters/relay/embedded-relay.js";
import type { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import type { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import type { DaemonStatus, Startup, StuckTurnView } from "../../src/daemon-status.js";
import type { Clock, EntityFetcher } from "../../src/ports.js";
import type { ProblemList } from "../../src/problem-list.js";
import { stuckTurn } from "../../src/routing-health.js";
import type { LoadedProject } from "../config/index.js";
import type { AgentRunner } from "./agents/agent-runner.js";
import type { ConversationQueues } from "./ingest/conversation-queues.js";
import type { IngestCounters } from "./ingest/counters.js";
import type { InboundRoute } from "./ingest/route.js";
import type { BackgroundLoop } from "./loops/background-loop.js";
import type { Escalator } from "./loops/escalation.js";
import type { LiveFeed } from "./live-feed.js";
import { EMBEDDED_MARK } from "./relays/embedded-start.js";
import type { Outbox } from "./relays/outbox.js";
import type { RelaySync } from "./relays/relay-sync.js";
import type { ConversationStore } from "./store/conversation-store.js";

/** The engine's parts, as it hands them to its status and its ports once started (engine.ts). */
export interface EngineState {
  project: LoadedProject;
  clock: Clock;
  startedAt: number;
  readyAt: number | undefined;
  startup: Startup;
  relayUrls: readonly string[];
  embedded: EmbeddedRelay | undefined;
  gateway: NdkGateway;
  sync: RelaySync;
  counters: IngestCounters;
  queues: ConversationQueues;
  store: ConversationStore;
  runner: AgentRunner;
  escalator: Escalator;
  verifier: OnDemandVerifier;
  outbox: Outbox;
  loops: readonly BackgroundLoop[];
  /** The conversation log. */
  log: FileConversationLog;
  index: SqliteIndex;
  problems: ProblemList;
  entities: EntityFetcher;
  route: InboundRoute;
  feed: LiveFeed;
  /** The memory trim's backend and its runs so far. */
  memoryTrim(): DaemonStatus["memory"]["trim"];
}

export function buildStatus(d: EngineState): Omit<DaemonStatus, "turns"> {
  const now = d.clock.now();
  return {
    pid: process.pid,
    project: { coordinate: d.project.coordinate, title: d.project.config.project.title, dir: d.project.tenexDir },
    startedAt: d.startedAt,
    uptimeMs: now - d.startedAt,
    readyMs: d.readyAt !== undefined ? d.readyAt - d.startedAt : null,
    startup: d.startup,
    relays: d.gateway.health(),
    lag: relayLag(d, now),
    embeddedRelay: d.embedded ? d.embedded.url : null,
    embeddedRelayGuard: d.embedded ? d.embedded.stats() : null,
    lastCatchup: d.sync.lastCatchup ?? null,
    backfill: backfillStatus(d),
    ingest: d.counters.snapshot(),
    queues: d.queues.depths(),
    store: d.store.stats(),
    // Where the daemon's memory is: the JS heap, and memory outside it (Buffers, the workers' heaps are in rss only).
    memory: { ...process.memoryUsage(), trim: d.memoryTrim() },
    agents: { ...d.runner.stats },
    runs: d.runner.running(),
    lastRuns: d.runner.lastRuns(),
    latency: { trigger: d.runner.latency.trigger.summary(), answer: d.runner.latency.answer.summary(), publish: d.outbox.latency.summary() },
    perMinute: d.counters.perMinute(now),
    unread: unreadBacklog(d, now),
    escalated: {
      agents: [...d.escalator.flaggedAgents].map((pk) => d.project.agents.find((a) => a.pubkey === pk)?.slug ?? pk),
      conversations: [...d.escalator.flaggedConversations],
    },
    catchingUp: d.sync.catchingUp,
    spawner: { backend: d.runner.spawner.backend, fallback: d.runner.spawner.fallback ?? null },
    verifier: { backend: d.verifier.choice.backend, fallback: d.verifier.choice.fallback ?? null, poolRunning: d.verifier.poolRunning, ...d.verifier.stats },
    outbox: d.outbox.status(),
    loops: d.loops.map((l) => ({ ...l.status })),
    log: d.log.stats(),
    // `at` (the last time) is kept beside `last` for readers of the earlier shape.
    problems: d.problems.list().map((p) => ({ at: p.last, ...p })),
    // Read from the records on disk: they outlive the process, and an operator clears them there.
    damage: listDamage(d.project.tenexDir),
  };
}

/** How far behind each relay the daemon is: the newest created_at it has taken from it. */
function relayLag(d: EngineState, now: number) {
  const marks = d.index.highWaterMarks();
  return d.relayUrls.map((url) => {
    const mark = marks.get(url) ?? (d.embedded?.url === url ? marks.get(EMBEDDED_MARK) : undefined);
    return { url, highWater: mark ?? null, behindSeconds: mark !== undefined ? Math.max(0, Math.floor(now / 1000) - mark) : null };
  });
}

/**
 * Each relay's last back-fill: complete, or why not and when it is tried again (the
 * backfill-retry loop's next run; it backs off while the back-fill stays incomplete).
 */
function backfillStatus(d: EngineState) {
  const retry = d.loops.find((l) => l.status.name === "backfill-retry")?.status;
  const relays = d.sync.backfillStates().map((s) => ({ ...s, retryAt: s.complete ? null : (retry?.nextRunAt ?? null) }));
  return { relays, retryFailures: retry?.failures ?? 0 };
}

/** Every agent's unread count, and the ones above `limits.unreadThreshold` (falling behind). */
function unreadBacklog(d: EngineState, now: number) {
  const threshold = d.project.config.limits.unreadThreshold;
  const byAgent = d.project.agents.map((a) => ({ slug: a.slug, pubkey: a.pubkey, unread: d.index.unreadCount(a.pubkey, now) }));
  return { threshold, byAgent, overThreshold: byAgent.filter((a) => a.unread > threshold).map((a) => a.slug) };
}

/** Open turns past their deadline, or in a conversation whose routing loops or stalls. */
export async function stuckTurns(d: EngineState): Promise<{ open: number; stuck: StuckTurnView[] }> {
  const now = d.clock.now();
  const { limits } = d.project.config;
  const slug = (pk: string) => d.project.agents.find((a) => a.pubkey === pk)?.slug ?? pk.slice(0, 8);
  const ids = d.store.openTurnConversations();
  const stuck: StuckTurnView[] = [];
  for (const id of ids) {
    const conv = await d.store.get(id);
    const found = conv && stuckTurn(conv.turns, now, { repeatThreshold: limits.repeatRoutingThreshold, stallThreshold: limits.stallThreshold });
    if (!conv || !found) continue;
    const { turn, overdue, problems, waitingFor } = found;
    stuck.push({
      conversationId: id, title: conv.title, turn: turn.number, phase: turn.phase, startedAt: turn.startedAt,
      deadline: turn.deadline ?? null, overdue, waitingFor: waitingFor.map(slug), problems,
    });
  }
  return { open: ids.length, stuck };
}

export async function directorStatus(d: EngineState): Promise<DaemonStatus> {
  return { ...buildStatus(d), turns: await stuckTurns(d) };
}
