// The engine's lifecycle: start takes the project, opens its storage and brings the index in
// step with the logs, connects the relays, composes the route of an inbound event
// (compose-route.ts), resumes what a stop or crash left, starts the background loops, and is ready
// then; stop undoes it in reverse, idempotently, and marks a clean stop so the next start can
// skip the index check. Its parts are its own: the front desk reads and asks through `ports()`.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ContextCache } from "../../src/agent-view.js";
import type { Startup } from "../../src/daemon-status.js";
import { NotFoundError } from "../../src/errors.js";
import { recoverOpenSession } from "../../src/execution-time.js";
import { projectRecipients, type RecipientsOf } from "../../src/messaging/recipients.js";
import type { Clock, EnginePorts } from "../../src/ports.js";
import { ProblemList, worthLogging } from "../../src/problem-list.js";
import { transportLimits } from "../../src/relay-guard/transport-limits.js";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import type { EmbeddedRelay } from "../../adapters/relay/embedded-relay.js";
import { OnDemandIndexWriter, type SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { makePrivate, PRIVATE_DIR } from "../../adapters/state-file/private-file.js";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import { VerifiedEventJson } from "../../adapters/verify/event-json.js";
import { chooseSpawner, type SpawnerChoice } from "../../adapters/spawn/spawner-choice.js";
import { loadMemoryTrim, type MemoryTrim } from "../../adapters/malloc/memory-trim.js";
import type { LoadedProject } from "../config/index.js";
import type { Logger } from "../logger.js";
import { acquirePidLock } from "../pid-lock.js";
import { commandAgentsOf, type CommandAgent } from "./agents/command-agents.js";
import { composeRoute, type Relays, type RouteParts } from "./compose-route.js";
import { ConversationQueues } from "./ingest/conversation-queues.js";
import { IngestCounters } from "./ingest/counters.js";
import { LiveFeed } from "./live-feed.js";
import { InboundRoute } from "./ingest/route.js";
import type { BackgroundLoop } from "./loops/background-loop.js";
import { engineLoops, type EngineLoops } from "./loops/engine-loops.js";
import { engineCommands, engineReads } from "./ports.js";
import { openIndex } from "./recovery/index-open.js";
import { checkIndexAtStart, markCleanStop } from "./recovery/start-check.js";
import { relayMarkKeys, startEmbeddedRelay } from "./relays/embedded-start.js";
import type { EngineState } from "./status.js";
import { ConversationStore } from "./store/conversation-store.js";

export interface EngineOptions {
  logger: Logger;
  clock?: Clock;
}

const systemClock: Clock = { now: () => Date.now() };

export class Engine {
  private readonly clock: Clock;
  private readonly startedAt: number;
  private readyAt: number | undefined;
  private startup: Startup = { cleanStart: false };
  private stopping: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private releaseLock: () => void = () => undefined;
  private readonly counters = new IngestCounters();
  /** Changes as they happen, for the front desk's live views (live-feed.ts). */
  private readonly feed = new LiveFeed();
  private readonly queues: ConversationQueues;
  private readonly cache = new ContextCache();
  /** Recent problems, one entry per cause with its repeat count (src/problem-list.ts). */
  private readonly problems = new ProblemList();
  /** Who a message is for, as the index stores it. */
  private readonly recipientsOf: RecipientsOf;
  /** The agents the daemon runs itself, by pubkey (mailbox agents pull their work through the API). */
  private readonly commandAgents: ReadonlyMap<string, CommandAgent>;
  /** The embedded relay's own process, started first so that it boots while the engine recovers. */
  private embeddedStarting: Promise<EmbeddedRelay> | undefined;
  /** Conversations whose logs lost lines before the relays were connected: fetched once they are. */
  private readonly toRefetch = new Set<string>();
  /** Records that never reached the index (an apply failed): the next start must reconcile. */
  private indexIncomplete = false;
  // The parts, in the order start opens them (each set once its step has run).
  private log: FileConversationLog | undefined;
  private index: SqliteIndex | undefined;
  /** The index's writes once the index is in step with the logs: on the main thread, or on a thread of their own under load. */
  private indexWriter: OnDemandIndexWriter | undefined;
  private store: ConversationStore | undefined;
  private verifier: OnDemandVerifier | undefined;
  /** How agents' programs are started; a TENEXD_SPAWNER naming none stops the start before anything is touched. */
  private readonly spawner: SpawnerChoice = chooseSpawner();
  /** Freed memory handed back once the start has settled and after each back-fill (adapters/malloc/memory-trim.ts). */
  private readonly memoryTrim: MemoryTrim = loadMemoryTrim();
  private readonly trims = { runs: 0, released: 0 };
  private relays: Relays | undefined;
  private parts: RouteParts | undefined;
  private loops: EngineLoops | undefined;

  private constructor(private readonly project: LoadedProject, private readonly logger: Logger, clock: Clock) {
    this.clock = clock;
    this.startedAt = clock.now();
    this.queues = new ConversationQueues(project.config.limits.maxConcurrentConversations);
    this.commandAgents = commandAgentsOf(project.agents);
    this.recipientsOf = projectRecipients(project.info);
  }

  static async start(project: LoadedProject, opts: EngineOptions): Promise<Engine> {
    const engine = new Engine(project, opts.logger, opts.clock ?? systemClock);
    try {
      await engine.open();
    } catch (err) {
      // What stopped the start is the error to report, not a later one of the clean-up (on a
      // read-only or full disk, closing meets the same fault again).
      await engine.stop().catch(() => undefined);
      throw err;
    }
    return engine;
  }

  private async open(): Promise<void> {
    this.takeProject();
    const { index, store } = await this.openStorage();
    const relays = (this.relays = await this.connectRelays());
    const parts = (this.parts = composeRoute({
      project: this.project, index, store, relays, verifier: this.verifier!, indexWriter: this.indexWriter!,
      queues: this.queues, counters: this.counters, clock: this.clock, logger: this.logger, cache: this.cache,
      commandAgents: this.commandAgents, spawner: this.spawner, signal: this.abort.signal, feed: this.feed,
      problem: (kind, detail) => this.problem(kind, detail),
      recordSent: (route, convId, eventId, sentTo) => this.recordSent(route, convId, eventId, sentTo),
      backfillRetrySoon: () => this.loops?.backfillRetry.runSoon(),
      trimMemory: () => this.trimMemory(),
    }));
    await this.resume(index, store, parts);
    this.startLoops(index, store, relays, parts);
    // What the start freed (the logs' listing, the index's check, the recovery) is handed back before it says ready.
    this.trimMemory();
    this.readyAt = this.clock.now();
  }

  private trimMemory(): void {
    this.trims.runs++;
    if (this.memoryTrim.trim()) this.trims.released++;
  }

  /** The pid lock, `.tenex/` private to its owner, and the embedded relay booting meanwhile. */
  private takeProject(): void {
    const dir = this.project.tenexDir;
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    this.releaseLock = acquirePidLock(join(dir, "daemon.pid"));
    // Whatever an older tenexd or a loose umask left open to others (files are created private).
    const loose = makePrivate(dir);
    if (loose.changed.length > 0) {
      this.logger.info("made private", { entries: loose.changed.length, examples: loose.changed.slice(0, 3).map((o) => `${o.path} ${o.mode.toString(8)}`) });
    }
    for (const f of loose.failed) this.problem("not_private", `${f.path} is open to other users and could not be changed (${f.error}): fix it by hand`);
    this.embeddedStarting = startEmbeddedRelay(this.project, this.logger,
      (detail) => this.problem("embedded_relay_exited", `${detail}; starting it again`));
  }

  /** The logs (the truth), the index brought in step with them, and the store over both. */
  private async openStorage(): Promise<{ index: SqliteIndex; store: ConversationStore }> {
    const { project } = this;
    const dir = project.tenexDir;
    // The verifier's workers serialize each event they pass; the log writes that text as it is
    // (adapters/verify/event-json.ts: the main thread does not serialize the event again).
    const eventJson = new VerifiedEventJson();
    const log = (this.log = new FileConversationLog(dir, {
      eventJson,
      onProblem: (p) => {
        this.problem(`log_${p.kind}`, `${p.id}: ${p.detail}`);
        // The index is derived from the logs: a log set aside takes its conversation out of it
        // (else it lists a conversation that has no log, and its events count as already held).
        if (p.kind === "quarantined") this.index?.drop(p.id);
        if (p.kind === "quarantined" || p.kind === "damaged_lines") this.lostLines(p.id);
      },
    }));
    // Agents' triggers and answers go by the log's urgent lane: its thread boots while the rest
    // starts, not on the first trigger (adapters/fs-log/thread-file-ops.ts).
    if (this.commandAgents.size > 0) log.warmUrgentLane();
    const opened = openIndex({ path: join(dir, "index.sqlite") }, this.clock.now());
    const index = (this.index = opened.index);
    if (opened.movedAside) this.problem("index_unusable", `${opened.movedAside.reason}; moved to ${opened.movedAside.path}`);
    this.startup = await checkIndexAtStart({
      tenexDir: dir, log, index, fresh: opened.fresh, movedAside: opened.movedAside !== undefined,
      relayKeys: relayMarkKeys(project), recipientsOf: this.recipientsOf,
    });
    // From here on the index is written on its own thread while much is written (the main thread
    // keeps the fold, the log and the reads): see adapters/sqlite-index/on-demand-index-writer.ts.
    const applier = (this.indexWriter = new OnDemandIndexWriter(index));
    const store = (this.store = new ConversationStore({
      log, index, applier, recipientsOf: this.recipientsOf, maxCachedBytes: project.config.limits.cacheBytes,
      isBusy: (id) => this.queues.isBusy(id),
      onIndexError: (err, id) => {
        this.indexIncomplete = true;
        this.problem("index_apply_failed", `${id}: ${String(err)}`);
      },
      onIndexed: (items) => this.feed.indexed(items),
      onLoad: (conv) => recoverOpenSession(conv.exec),
      onLoadError: (err, id) => this.problem("recovery_failed", `${id}: ${String(err)}`),
      // Once the relays are connected: a title or status change is announced (kind 513).
      onDurable: (conv, records) => this.parts?.metadata.durable(conv, records),
    }));
    await store.init(index.openTurnConversations());
    // The verifier is chosen here, once (bcrypto native after its self-test, else nostr-wasm); the
    // spawner (posix_spawn when its module built, else child_process) when the engine was made.
    this.verifier = new OnDemandVerifier({ pool: { eventJson } });
    for (const [what, { backend, fallback }] of [["verifier", this.verifier.choice], ["spawner", this.spawner], ["memory trim", this.memoryTrim]] as const) {
      this.logger.info(what, { backend, ...(fallback !== undefined ? { fallback } : {}) });
    }
    return { index, store };
  }

  private async connectRelays(): Promise<Relays> {
    const { config, relayAuth } = this.project;
    const embedded = await this.embeddedStarting;
    const urls = embedded ? [embedded.url] : [...config.relays];
    const gateway = await NdkGateway.connect({
      relays: urls, clock: this.clock, authKey: relayAuth.secretKey,
      maxFrameBytes: transportLimits(config.limits.maxEventBytes).clientMaxFrameBytes,
    });
    return { urls, gateway, embedded };
  }

  /** What a stop or crash left: the outbox resent, the relays synced, lost lines fetched again, pending runs run. */
  private async resume(index: SqliteIndex, store: ConversationStore, parts: RouteParts): Promise<void> {
    // Events published before a stop or crash that no relay accepted yet: sent again.
    for (const { eventId, conversationId } of index.unsentEvents()) {
      const ev = (await store.get(conversationId))?.eventsById.get(eventId)?.ev;
      if (ev) void parts.outbox.enqueue(ev, conversationId);
      else this.problem("outbox_event_missing", `${eventId} in ${conversationId}`);
    }
    parts.sync.start();
    for (const id of this.toRefetch) this.refetch(id);
    this.toRefetch.clear();
    // Agent runs acknowledged before a stop or crash and never recorded as done: run now.
    for (const { conversationId, agent, triggerId } of index.pendingRuns()) {
      const trigger = (await store.get(conversationId))?.eventsById.get(triggerId)?.ev;
      const known = this.project.agents.some((a) => a.pubkey === agent);
      // An agent that is a mailbox agent now (agents.json changed since) pulls its work itself.
      const runnable = this.commandAgents.get(agent);
      if (trigger && runnable) parts.runner.trigger(conversationId, runnable, trigger);
      else if (!trigger || !known) this.problem("pending_run_unresolvable", `${agent.slice(0, 12)}… on ${triggerId} in ${conversationId}`);
    }
  }

  private startLoops(index: SqliteIndex, store: ConversationStore, relays: Relays, parts: RouteParts): void {
    const loops = (this.loops = engineLoops({
      project: this.project, clock: this.clock, index, store, route: parts.route, gateway: relays.gateway,
      orchestrator: parts.signers.get(this.project.orchestrator.pubkey)!, threads: parts.threads, sync: parts.sync,
      outbox: parts.outbox, counters: this.counters, problem: (kind, detail) => this.problem(kind, detail),
    }));
    for (const l of loops.all) l.start(l.status.name === "heartbeat");
  }

  private problem(kind: string, detail: string): void {
    const p = this.problems.note(kind, detail, this.clock.now());
    // A cause that repeats (every event of a back-fill on a full disk) is logged a few times,
    // then at every power of ten, with its count.
    if (worthLogging(p.count)) this.logger.warn(kind, p.count === 1 ? { detail } : { detail, repeats: p.count });
  }

  /** A relay accepted the daemon's own event: a `sent` record (nothing to record in a conversation gone since). */
  private async recordSent(route: InboundRoute, convId: string, eventId: string, relays: string[]): Promise<void> {
    try {
      await route.inConversation(convId, (_conv, now) => ({ records: [{ t: "sent", at: now, eventId, relay: relays.join(" ") }], result: undefined }));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  /**
   * A log lost lines (set aside as damaged, or the whole file): its aggregate in memory is no
   * longer what the log holds, and the relays may still hold the events those lines held.
   */
  private lostLines(id: string): void {
    this.store?.forget(id);
    if (this.parts) this.refetch(id);
    else this.toRefetch.add(id);
  }

  // After the conversation is loaded again (which brings the index back in step with the log):
  // until then the index may still list the lost events, and what comes back would be dropped as
  // already held.
  private refetch(id: string): void {
    void this.store!.get(id).catch(() => undefined).then(() => this.parts!.threads.refetch(id));
  }

  /** The engine as the front desk reaches it (src/ports.ts): its reads (the caller closes them) and its commands. */
  ports(): EnginePorts {
    const state = this.state();
    return { reads: engineReads(state), commands: engineCommands(state.route, state.store, state.runner) };
  }

  /** What the start says once ready. */
  readiness(): { relays: string[]; ms: number; conversations: number } {
    return { relays: [...(this.relays?.urls ?? [])], ms: (this.readyAt ?? 0) - this.startedAt, conversations: this.store!.stats().known };
  }

  /** The engine's parts, for its status and its ports: once started, every one is there. */
  private state(): EngineState {
    const { log, index, store, verifier, relays, parts, loops } = this;
    if (!log || !index || !store || !verifier || !relays || !parts || !loops) throw new Error("the engine has not started");
    return {
      project: this.project, clock: this.clock, startedAt: this.startedAt, readyAt: this.readyAt, startup: this.startup,
      relayUrls: relays.urls, embedded: relays.embedded, gateway: relays.gateway, sync: parts.sync, counters: this.counters,
      queues: this.queues, store, runner: parts.runner, escalator: loops.escalator, verifier, outbox: parts.outbox,
      loops: loops.all, log, index, problems: this.problems, entities: parts.entities, route: parts.route, feed: this.feed,
      memoryTrim: () => ({ backend: this.memoryTrim.backend, fallback: this.memoryTrim.fallback ?? null, ...this.trims }),
    };
  }

  /** Idempotent: every call returns the same promise. */
  stop(): Promise<void> {
    this.stopping ??= this.close();
    return this.stopping;
  }

  private async close(): Promise<void> {
    this.abort.abort();
    const loops: BackgroundLoop[] = this.loops?.all ?? [];
    // The sync first: a retry loop waiting on a back-fill waits only until its next page.
    const syncStopped = this.parts?.sync.stop();
    await Promise.all(loops.map((l) => l.stop()));
    await syncStopped;
    await this.parts?.runner.idle();
    await this.queues.idle();
    await this.store?.indexed();
    await this.verifier?.close();
    await this.relays?.gateway.close();
    // Started, but open() failed before it was awaited: it must not outlive the engine.
    await (this.relays?.embedded ?? (await this.embeddedStarting?.catch(() => undefined)))?.close();
    await this.log?.close();
    // Closing the log flushed what was still queued (an outbox `sent` record, say): into the
    // index before it closes, or the clean-shutdown marker would let the next start skip it.
    await this.store?.indexed();
    await this.indexWriter?.close();
    this.parts?.sync.flushMarks();
    this.index?.close();
    // The marker lets the next start skip reconciling the index with the logs: not if records
    // are missing from it.
    if (this.readyAt !== undefined && !this.indexIncomplete) markCleanStop(this.project.tenexDir, this.clock.now());
    this.releaseLock();
  }
}
