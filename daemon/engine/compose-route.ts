// The route of an inbound event and where it leads, composed once the engine has its storage
// and its relays (engine.ts): the relays deliver into the route (live and back-fill: RelaySync;
// threads of unknown roots: ThreadFetcher), its runs go to the agent runner, the daemon's own
// events to the outbox.

import type { ContextCache } from "../../src/agent-view.js";
import { authorName } from "../../src/author-names.js";
import { authorsOf } from "../../src/backfill/project-filters.js";
import type { Clock, EntityFetcher } from "../../src/ports.js";
import { orchestratorOf } from "../../src/routing.js";
import { mayTrigger } from "../../src/trigger-hint.js";
import { KeySigner } from "../../adapters/nostr/key-signer.js";
import type { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import { RelayEntityFetcher } from "../../adapters/nostr/relay-entity-fetcher.js";
import type { EmbeddedRelay } from "../../adapters/relay/embedded-relay.js";
import type { OnDemandIndexWriter, SqliteIndex } from "../../adapters/sqlite-index/index.js";
import type { SpawnerChoice } from "../../adapters/spawn/spawner-choice.js";
import type { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import type { LoadedProject } from "../config/index.js";
import type { Logger } from "../logger.js";
import { AgentRunner } from "./agents/agent-runner.js";
import type { CommandAgent } from "./agents/command-agents.js";
import { liveOperations, type LiveOperations } from "./agents/live-operations.js";
import type { ConversationQueues } from "./ingest/conversation-queues.js";
import type { IngestCounters } from "./ingest/counters.js";
import { InboundRoute } from "./ingest/route.js";
import type { LiveFeed } from "./live-feed.js";
import { RETRY_TEXT } from "./loops/engine-loops.js";
import { EMBEDDED_MARK } from "./relays/embedded-start.js";
import { highWaterStore } from "./relays/high-water-store.js";
import { Outbox } from "./relays/outbox.js";
import { RelaySync } from "./relays/relay-sync.js";
import { ThreadFetcher } from "./relays/thread-fetcher.js";
import type { ConversationStore } from "./store/conversation-store.js";

/** What the relays step connects: the relays' urls and the gateway to them. */
export interface Relays {
  urls: string[];
  gateway: NdkGateway;
  embedded: EmbeddedRelay | undefined;
}

/** The route's parts, composed once the storage and the relays are there. */
export interface RouteParts {
  route: InboundRoute;
  outbox: Outbox;
  threads: ThreadFetcher;
  runner: AgentRunner;
  sync: RelaySync;
  entities: EntityFetcher;
  signers: Map<string, KeySigner>;
  metadata: LiveOperations["metadata"];
}


/** What the route is composed of: the engine's storage, relays and shared parts, and its callbacks. */
export interface RouteInputs {
  project: LoadedProject;
  index: SqliteIndex;
  store: ConversationStore;
  relays: Relays;
  verifier: OnDemandVerifier;
  indexWriter: OnDemandIndexWriter;
  queues: ConversationQueues;
  counters: IngestCounters;
  clock: Clock;
  logger: Logger;
  cache: ContextCache;
  commandAgents: ReadonlyMap<string, CommandAgent>;
  spawner: SpawnerChoice;
  /** Aborted when the engine stops: agents' programs end. */
  signal: AbortSignal;
  feed: LiveFeed;
  problem(kind: string, detail: string): void;
  /** An own event the relays accepted: noted in its conversation and the index. */
  recordSent(route: InboundRoute, convId: string, eventId: string, relays: string[]): Promise<void>;
  /** A relay that refused live events takes writes again: its back-fill soon. */
  backfillRetrySoon(): void;
  /** Hands freed memory back to the system (after a back-fill, which allocates and frees a lot). */
  trimMemory(): void;
}

/** The route (ingest/route.ts) and its parts, connected. */
export function composeRoute(d: RouteInputs): RouteParts {
  const { project, index, store, relays, verifier } = d;
  const signers = new Map(project.agents.map((a) => [a.pubkey, new KeySigner(a.secretKey)]));
  // The owner's key, when config.json names its file, lets `tenexd ask` speak as the owner.
  if (project.owner.secretKey) signers.set(project.owner.pubkey, new KeySigner(project.owner.secretKey));
  const route = new InboundRoute({
    project: project.info, limits: project.config.limits, verifier, store,
    queues: d.queues, counters: d.counters, clock: d.clock, runnable: d.commandAgents, signers,
  });
  const { gateway, urls, embedded } = relays;
  // Made last (it takes the route in); the thread fetcher asks it whether a back-fill runs.
  let sync: RelaySync | undefined;
  const outbox = new Outbox({ gateway, clock: d.clock, markSent: (convId, eventId, sentTo) => d.recordSent(route, convId, eventId, sentTo) });
  const threads = new ThreadFetcher({
    gateway, relays: urls, authors: authorsOf({ coordinate: project.coordinate, users: project.info.whitelist, agents: project.agents.map((a) => a.pubkey) }),
    ingest: route.fromRelay,
    holds: (id) => store.hasEvent(id),
    busy: () => sync?.catchingUp ?? false,
    onError: (rootId, err) => d.problem("thread_fetch_failed", `${rootId}: ${String(err)}`),
  });
  const entities = new RelayEntityFetcher(gateway, (ev) => verifier.verify(ev));
  // Live operations (docs/contract.md): who works where (24133), the stop requests that end that work (24134), 513.
  const { active, stops, metadata } = liveOperations({
    project, gateway, orchestrator: signers.get(project.orchestrator.pubkey)!, verifier, route, holds: (id) => store.has(id),
    runsItself: (pk) => d.commandAgents.has(pk), counters: d.counters, clock: d.clock, logger: d.logger,
    problem: d.problem,
  });
  const runner = new AgentRunner({
    project: project.info, agents: project.agents, orchestrator: project.orchestrator, projectDir: project.projectDir,
    store, queues: d.queues, route, clock: d.clock, logger: d.logger,
    cache: d.cache, turnTimeoutMs: project.config.limits.turnTimeoutSeconds * 1000,
    nameOf: (pk) => authorName(project.info, pk),
    signal: d.signal, entities, active, spawner: d.spawner,
    onRun: (state, run) => d.feed.emit({ kind: "run", state, run }),
  });
  route.connect({ runs: runner, outbox, threads });
  sync = new RelaySync({
    gateway, relays: urls, coordinate: project.coordinate, marks: highWaterStore(index, d.indexWriter, (err) => d.problem("high_water_failed", String(err))),
    agentPubkeys: project.agents.map((a) => a.pubkey), userPubkeys: project.info.whitelist,
    markKey: (url) => (embedded && url === embedded.url ? EMBEDDED_MARK : url),
    overlapSeconds: project.config.catchup.overlapSeconds,
    ingest: route.fromRelay,
    ingestMany: (items, outcome, failed) => route.fromRelayMany(items, outcome, failed),
    onCatchup: (r) => {
      d.logger.info("caught up", { fetched: r.fetched, pages: r.pages, ms: r.ms, quiet: r.quiet, complete: r.complete, ...(r.reason ? { reason: r.reason } : {}) });
      threads.backfillDone();
      d.trimMemory();
    },
    onIncomplete: (url, reason) => d.problem("backfill_incomplete", `${url}: ${reason}; its mark stays, tried again ${RETRY_TEXT}`),
    retrySoon: d.backfillRetrySoon,
    onError: (err) => d.problem("ingest_failed", String(err)),
    now: () => d.clock.now(),
    stops: (ev, relay) => void stops.take(ev, relay).catch((err: unknown) => d.problem("stop_request_failed", String(err))),
    urgent: (ev) => mayTrigger(ev, d.commandAgents, orchestratorOf(project.info)?.pubkey),
  });
  return { route, outbox, threads, runner, sync, entities, signers, metadata };
}
