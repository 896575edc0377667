// The engine's background loops (background-loop.ts: pg-boss discipline): back-fill retries,
// outbox retries, high-water flushes, the 24010 heartbeat, turn timeouts, escalation.

import { NotFoundError } from "../../../src/errors.js";
import type { Clock, Signer } from "../../../src/ports.js";
import { detectRoutingProblems } from "../../../src/routing-health.js";
import { decideTimeouts } from "../../../src/turns.js";
import type { SqliteIndex } from "../../../adapters/sqlite-index/index.js";
import type { LoadedProject } from "../../config/index.js";
import type { InboundRoute } from "../ingest/route.js";
import { publishHeartbeat } from "../relays/heartbeat.js";
import type { Outbox } from "../relays/outbox.js";
import { BackfillIncompleteError, type RelaySync } from "../relays/relay-sync.js";
import type { ThreadFetcher } from "../relays/thread-fetcher.js";
import type { ConversationStore } from "../store/conversation-store.js";
import type { NdkGateway } from "../../../adapters/nostr/ndk-gateway.js";
import type { IngestCounters } from "../ingest/counters.js";
import { BackgroundLoop } from "./background-loop.js";
import { Escalator } from "./escalation.js";
import { escalationState } from "./escalation-state.js";

// An incomplete back-fill is tried again after 5 s, then at doubling intervals up to 5 min
// while it stays incomplete; every 5 s again once it completed.
const RETRY_MS = 5_000;
const RETRY_MAX_MS = 300_000;
export const RETRY_TEXT = "after 5 s, backing off to every 5 min";

export interface LoopParts {
  project: LoadedProject;
  clock: Clock;
  index: SqliteIndex;
  store: ConversationStore;
  route: InboundRoute;
  gateway: NdkGateway;
  /** Signs the heartbeat. */
  orchestrator: Signer;
  threads: ThreadFetcher;
  sync: RelaySync;
  outbox: Outbox;
  counters: IngestCounters;
  problem(kind: string, detail: string): void;
}

export interface EngineLoops {
  /** Back-fills again what was incomplete or refused (RelaySync.retryDue, failed thread fetches), with backoff. */
  backfillRetry: BackgroundLoop;
  escalator: Escalator;
  all: BackgroundLoop[];
}

/** Builds the loops; none runs until started. */
export function engineLoops(p: LoopParts): EngineLoops {
  const now = () => p.clock.now();
  const { project } = p;
  const { limits } = project.config;
  const escalator = new Escalator({
    coordinate: project.coordinate, owner: project.owner.pubkey, agents: project.agents, threshold: limits.unreadThreshold,
    unreadCount: (pk) => p.index.unreadCount(pk, p.clock.now()),
    conversations: async () => {
      const out = [];
      for (const id of p.store.openTurnConversations()) {
        const conv = await p.store.get(id);
        if (!conv) continue;
        const problems = detectRoutingProblems(conv.turns, { repeatThreshold: limits.repeatRoutingThreshold, stallThreshold: limits.stallThreshold });
        out.push({ id, title: conv.title, phase: conv.phase.phase, root: conv.eventsById.get(id)?.ev, problems });
      }
      return out;
    },
    publish: (ev) => p.route.publish(project.orchestrator.pubkey, ev),
    nowSecs: () => Math.floor(p.clock.now() / 1000),
    // What was already told survives a restart: the owner is not told again about a problem still present.
    state: escalationState(project.tenexDir, (detail) => p.problem("escalation_state_unreadable", detail)),
  });
  const backfillRetry = new BackgroundLoop("backfill-retry", RETRY_MS, async () => {
    const threads = await p.threads.retryFailed();
    await p.sync.retryDue();
    // Thrown so that the loop backs off while a fetch keeps failing, like a back-fill.
    if (threads > 0) throw new BackfillIncompleteError(`${threads} thread fetches failed again`);
  }, now, RETRY_MAX_MS);
  const all = [
    backfillRetry,
    new BackgroundLoop("outbox", 1_000, () => p.outbox.retryDue(), now),
    new BackgroundLoop("high-water", 1_000, () => p.sync.flushMarks(), now),
    new BackgroundLoop("heartbeat", project.config.heartbeatSeconds * 1000,
      async () => void (await publishHeartbeat(p.gateway, p.orchestrator, project.info, p.clock.now())), now),
    new BackgroundLoop("turn-timeouts", 5_000, () => timeoutTurns(p.store, p.route), now),
    new BackgroundLoop("escalation", 30_000, () => escalator.check(), now),
    // A sample at the start of each minute, for the per-minute counts (src/dashboard/minute-series.ts).
    new BackgroundLoop("minute-counters", 5_000, async () => p.counters.sampleMinute(now()), now),
  ];
  return { backfillRetry, escalator, all };
}

/** Open turns past their deadline are timed out (src/turns.ts), each in its conversation's queue. */
async function timeoutTurns(store: ConversationStore, route: InboundRoute): Promise<void> {
  for (const id of store.openTurnConversations()) {
    try {
      await route.inConversation(id, (conv, now) => ({ records: decideTimeouts(conv.turns, now), result: undefined }));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
}
