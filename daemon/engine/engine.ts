// The daemon's lifecycle: start wires every part in order and is ready when the log, the index
// and the relays are in step; stop undoes it in reverse, idempotently, and marks a clean stop so
// the next start can skip the index check. Every background task runs in a BackgroundLoop.

import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ContextCache } from "../../src/agent-view.js";
import { authorsOf } from "../../src/backfill/project-filters.js";
import { authorName } from "../../src/author-names.js";
import { recoverOpenSession } from "../../src/execution-time.js";
import { NotFoundError } from "../../src/errors.js";
import type { Clock, EntityFetcher } from "../../src/ports.js";
import { ProblemList, worthLogging } from "../../src/problem-list.js";
import { detectRoutingProblems } from "../../src/routing-health.js";
import { decideTimeouts } from "../../src/turns.js";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import type { EmbeddedRelay } from "../../adapters/relay/embedded-relay.js";
import { transportLimits } from "../../src/relay-guard/transport-limits.js";
import { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import { RelayEntityFetcher } from "../../adapters/nostr/relay-entity-fetcher.js";
import { KeySigner } from "../../adapters/nostr/key-signer.js";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import type { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { ensurePrivateFile, makePrivate, PRIVATE_DIR, PRIVATE_FILE } from "../../adapters/state-file/private-file.js";
import { AgentRunner, commandAgentsOf, type CommandAgent } from "./agents/agent-runner.js";
import { BackgroundLoop } from "./loops/background-loop.js";
import type { LoadedProject } from "../config/index.js";
import { Escalator } from "./loops/escalation.js";
import { escalationState } from "./loops/escalation-state.js";
import { logFingerprint, parseMarker, sameFingerprint } from "./recovery/log-fingerprint.js";
import { publishHeartbeat } from "./relays/heartbeat.js";
import { reconcileIndex, rebuildIndex } from "./recovery/index-recovery.js";
import { openIndex } from "./recovery/index-open.js";
import { ConversationQueues } from "./ingest/conversation-queues.js";
import { IngestCounters } from "./ingest/counters.js";
import { InboundRoute } from "./ingest/route.js";
import { engineCommands, engineReads } from "./ports.js";
import type { EnginePorts } from "../../src/ports.js";
import type { Logger } from "../logger.js";
import { Outbox } from "./relays/outbox.js";
import { acquirePidLock } from "../pid-lock.js";
import { BackfillIncompleteError, RelaySync } from "./relays/relay-sync.js";
import { ThreadFetcher } from "./relays/thread-fetcher.js";
import { ConversationStore } from "./store/conversation-store.js";
import { embeddedRelayGuard } from "./relays/embedded-relay-guard.js";
import { projectRecipients, type RecipientsOf } from "../../src/messaging/recipients.js";
import type { ReconcileReport } from "../../src/daemon-status.js";

export interface DaemonOptions {
  log: Logger;
  clock?: Clock;
}

const systemClock: Clock = { now: () => Date.now() };
/** The high-water mark key of the embedded relay, whose port may change between starts. */
export const EMBEDDED_MARK = "embedded";
// An incomplete back-fill is tried again after 5 s, then at doubling intervals up to 5 min
// while it stays incomplete; every 5 s again once it completed.
const RETRY_MS = 5_000;
const RETRY_MAX_MS = 300_000;
const RETRY_TEXT = "after 5 s, backing off to every 5 min";

export class Daemon {
  readonly startedAt: number;
  readyAt: number | undefined;
  /**
   * How this start found the project: the first start of a new project (nothing to recover), a
   * clean one (the last stop was clean and the logs are as it left them), or one that rebuilt
   * or reconciled the index.
   */
  startup: { reconcile?: ReconcileReport; rebuilt?: boolean; cleanStart: boolean; firstStart?: boolean } = { cleanStart: false };
  private stopping: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly loops: BackgroundLoop[] = [];
  private releaseLock: () => void = () => undefined;
  relayUrls: string[] = [];
  embedded: EmbeddedRelay | undefined;
  /** The embedded relay's own process, started first so that it boots while the daemon recovers. */
  private embeddedStarting: Promise<EmbeddedRelay> | undefined;
  gateway: NdkGateway | undefined;
  sync: RelaySync | undefined;
  readonly clock: Clock;
  readonly counters = new IngestCounters();
  readonly queues: ConversationQueues;
  readonly cache = new ContextCache();
  log!: FileConversationLog;
  index!: SqliteIndex;
  /** Records that never reached the index (an apply failed): the next start must reconcile. */
  private indexIncomplete = false;
  store!: ConversationStore;
  verifier!: OnDemandVerifier;
  route!: InboundRoute;
  outbox!: Outbox;
  runner!: AgentRunner;
  /** `nostr:` references in agent contexts, resolved from the relays. */
  entities!: EntityFetcher;
  escalator!: Escalator;
  /** Recent problems, one entry per cause with its repeat count (src/problem-list.ts). */
  readonly problems = new ProblemList();
  /** Back-fills again what was incomplete or refused (RelaySync.retryDue, failed thread fetches), with backoff. */
  private backfillRetry: BackgroundLoop | undefined;
  private threads!: ThreadFetcher;
  /** Who a message is for, as the index stores it. */
  private readonly recipientsOf: RecipientsOf;
  /** The agents the daemon runs itself, by pubkey (mailbox agents pull their work through the API). */
  private readonly commandAgents: ReadonlyMap<string, CommandAgent>;
  /** Conversations whose logs lost lines before the relays were connected: fetched once they are. */
  private readonly toRefetch = new Set<string>();

  private constructor(readonly project: LoadedProject, private readonly opts: DaemonOptions) {
    this.clock = opts.clock ?? systemClock;
    this.startedAt = this.clock.now();
    this.queues = new ConversationQueues(project.config.limits.maxConcurrentConversations);
    this.commandAgents = commandAgentsOf(project.agents);
    this.recipientsOf = projectRecipients(project.info);
  }

  static async start(project: LoadedProject, opts: DaemonOptions): Promise<Daemon> {
    const d = new Daemon(project, opts);
    try {
      await d.open();
    } catch (err) {
      // What stopped the start is the error to report, not a later one of the clean-up (on a
      // read-only or full disk, closing meets the same fault again).
      await d.stop().catch(() => undefined);
      throw err;
    }
    return d;
  }

  private get logger(): Logger {
    return this.opts.log;
  }

  private problem(kind: string, detail: string): void {
    const p = this.problems.note(kind, detail, this.clock.now());
    // A cause that repeats (every event of a back-fill on a full disk) is logged a few times,
    // then at every power of ten, with its count.
    if (worthLogging(p.count)) this.logger.warn(kind, p.count === 1 ? { detail } : { detail, repeats: p.count });
  }

  private async open(): Promise<void> {
    const { project } = this;
    const dir = project.tenexDir;
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    this.releaseLock = acquirePidLock(join(dir, "daemon.pid"));
    // Whatever an older tenexd or a loose umask left open to others (files are created private).
    const loose = makePrivate(dir);
    if (loose.changed.length > 0) {
      this.logger.info("made private", { entries: loose.changed.length, examples: loose.changed.slice(0, 3).map((o) => `${o.path} ${o.mode.toString(8)}`) });
    }
    for (const f of loose.failed) this.problem("not_private", `${f.path} is open to other users and could not be changed (${f.error}): fix it by hand`);
    this.startEmbeddedRelay();

    this.log = new FileConversationLog(dir, {
      onProblem: (p) => {
        this.problem(`log_${p.kind}`, `${p.id}: ${p.detail}`);
        // The index is derived from the logs: a log set aside takes its conversation out of it
        // (else it lists a conversation that has no log, and its events count as already held).
        if (p.kind === "quarantined") this.index?.drop(p.id);
        if (p.kind === "quarantined" || p.kind === "damaged_lines") this.lostLines(p.id);
      },
    });
    const opened = openIndex({ path: join(dir, "index.sqlite") }, this.clock.now());
    this.index = opened.index;
    if (opened.movedAside) this.problem("index_unusable", `${opened.movedAside.reason}; moved to ${opened.movedAside.path}`);
    await this.reconcile(opened.fresh, opened.movedAside !== undefined);

    this.store = new ConversationStore({
      log: this.log, index: this.index, recipientsOf: this.recipientsOf, maxCachedBytes: project.config.limits.cacheBytes,
      isBusy: (id) => this.queues.isBusy(id),
      onIndexError: (err, id) => {
        this.indexIncomplete = true;
        this.problem("index_apply_failed", `${id}: ${String(err)}`);
      },
      onLoad: (conv) => recoverOpenSession(conv.exec),
      onLoadError: (err, id) => this.problem("recovery_failed", `${id}: ${String(err)}`),
    });
    await this.store.init(this.index.openTurnConversations());
    this.verifier = new OnDemandVerifier();
    const signers = new Map(project.agents.map((a) => [a.pubkey, new KeySigner(a.secretKey)]));
    // The owner's key, when config.json names its file, lets `tenexd ask` speak as the owner.
    if (project.owner.secretKey) signers.set(project.owner.pubkey, new KeySigner(project.owner.secretKey));

    await this.connectRelays();
    const gateway = this.gateway!;
    const route = (this.route = new InboundRoute({
      project: project.info, limits: project.config.limits, verifier: this.verifier, store: this.store,
      queues: this.queues, counters: this.counters, clock: this.clock, runnable: this.commandAgents, signers,
    }));
    this.outbox = new Outbox({ gateway, clock: this.clock, markSent: (convId, eventId, relays) => this.recordSent(convId, eventId, relays) });
    const authors = authorsOf({ coordinate: project.coordinate, users: project.info.whitelist, agents: project.agents.map((a) => a.pubkey) });
    const threads = (this.threads = new ThreadFetcher({
      gateway, relays: this.relayUrls, authors, ingest: route.fromRelay,
      holds: (id) => this.store.hasEvent(id),
      busy: () => this.sync?.catchingUp ?? false,
      onError: (rootId, err) => this.problem("thread_fetch_failed", `${rootId}: ${String(err)}`),
    }));
    this.entities = new RelayEntityFetcher(gateway, (ev) => this.verifier.verify(ev));
    this.runner = new AgentRunner({
      project: project.info, agents: project.agents, orchestrator: project.orchestrator, projectDir: project.projectDir,
      store: this.store, queues: this.queues, route, clock: this.clock, log: this.logger,
      cache: this.cache, turnTimeoutMs: project.config.limits.turnTimeoutSeconds * 1000,
      nameOf: (pk) => authorName(project.info, pk),
      signal: this.abort.signal, entities: this.entities,
    });
    route.connect({ runs: this.runner, outbox: this.outbox, threads });

    this.sync = new RelaySync({
      gateway, relays: this.relayUrls, coordinate: project.coordinate, marks: this.index,
      agentPubkeys: project.agents.map((a) => a.pubkey), userPubkeys: project.info.whitelist,
      markKey: (url) => (this.embedded && url === this.embedded.url ? EMBEDDED_MARK : url),
      overlapSeconds: project.config.catchup.overlapSeconds,
      ingest: route.fromRelay,
      onCatchup: (r) => {
        this.logger.info("caught up", { fetched: r.fetched, pages: r.pages, ms: r.ms, quiet: r.quiet, complete: r.complete, ...(r.reason ? { reason: r.reason } : {}) });
        threads.backfillDone();
      },
      onIncomplete: (url, reason) => this.problem("backfill_incomplete", `${url}: ${reason}; its mark stays, tried again ${RETRY_TEXT}`),
      retrySoon: () => this.backfillRetry?.runSoon(),
      onError: (err) => this.problem("ingest_failed", String(err)),
      now: () => this.clock.now(),
    });
    await this.resumeOutbox();
    this.sync.start();
    for (const id of this.toRefetch) this.refetch(id);
    this.toRefetch.clear();
    await this.resumeRuns();
    this.startLoops(signers.get(project.orchestrator.pubkey)!);
    this.readyAt = this.clock.now();
  }

  /** A relay accepted the daemon's own event: a `sent` record (nothing to record in a conversation gone since). */
  private async recordSent(convId: string, eventId: string, relays: string[]): Promise<void> {
    try {
      await this.route.inConversation(convId, (_conv, now) => ({ records: [{ t: "sent", at: now, eventId, relay: relays.join(" ") }], result: undefined }));
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
    if (this.threads) this.refetch(id);
    else this.toRefetch.add(id);
  }

  // After the conversation is loaded again (which brings the index back in step with the log):
  // until then the index may still list the lost events, and what comes back would be dropped as
  // already held.
  private refetch(id: string): void {
    void this.store.get(id).catch(() => undefined).then(() => this.threads.refetch(id));
  }

  /** Events published before a stop or crash that no relay accepted yet: send them again. */
  private async resumeOutbox(): Promise<void> {
    for (const { eventId, conversationId } of this.index.unsentEvents()) {
      const ev = (await this.store.get(conversationId))?.eventsById.get(eventId)?.ev;
      if (ev) void this.outbox.enqueue(ev, conversationId);
      else this.problem("outbox_event_missing", `${eventId} in ${conversationId}`);
    }
  }

  /** Agent runs acknowledged before a stop or crash and never recorded as done: run them now. */
  private async resumeRuns(): Promise<void> {
    for (const { conversationId, agent, triggerId } of this.index.pendingRuns()) {
      const trigger = (await this.store.get(conversationId))?.eventsById.get(triggerId)?.ev;
      const known = this.project.agents.some((a) => a.pubkey === agent);
      // An agent that is a mailbox agent now (agents.json changed since) pulls its work itself.
      const runnable = this.commandAgents.get(agent);
      if (trigger && runnable) this.runner.trigger(conversationId, runnable, trigger);
      else if (!trigger || !known) this.problem("pending_run_unresolvable", `${agent.slice(0, 12)}… on ${triggerId} in ${conversationId}`);
    }
  }

  private async reconcile(fresh: boolean, movedAside: boolean): Promise<void> {
    const marker = join(this.project.tenexDir, "clean-shutdown");
    const stopped = existsSync(marker) ? parseMarker(readFileSync(marker, "utf8")) : undefined;
    // Clean only if the logs still look as they did at the stop (nothing damaged them since).
    const clean = stopped !== undefined && sameFingerprint(stopped, logFingerprint(this.project.tenexDir));
    // The marker is removed at once: a crash from here on leaves no claim of a clean stop.
    if (existsSync(marker)) unlinkSync(marker);
    this.startup.cleanStart = clean && !fresh;
    if (fresh) {
      const rebuilt = await rebuildIndex(this.log, this.index, { recipientsOf: this.recipientsOf });
      // A new project: no index, no log, never stopped. Nothing was rebuilt and nothing was
      // unclean; saying so would look like a fault on the very first start.
      if (stopped === undefined && !movedAside && rebuilt.conversations === 0 && rebuilt.unreadable.length === 0) {
        this.startup = { cleanStart: true, firstStart: true };
        return;
      }
      this.startup.rebuilt = true;
      // A lost index lost its high-water marks too: resume from the newest event the logs hold
      // (catch-up subtracts the overlap), so what was missed meanwhile still sets agents to work.
      if (rebuilt.newestRelayEvent !== undefined && this.index.highWaterMarks().size === 0) {
        for (const relay of this.configuredRelayKeys()) this.index.setHighWater(relay, rebuilt.newestRelayEvent);
      }
    } else if (!clean) {
      this.startup.reconcile = await reconcileIndex(this.log, this.index, { recipientsOf: this.recipientsOf });
    }
  }

  /** Keys of the relays' high-water marks: the embedded relay's port may change between starts. */
  private configuredRelayKeys(): string[] {
    const { relays } = this.project.config;
    return relays.length === 0 ? [EMBEDDED_MARK] : [...relays];
  }

  /** Without relays configured: the embedded relay, in a process of its own unless `embeddedRelay.inProcess`. */
  private startEmbeddedRelay(): void {
    const { config, tenexDir } = this.project;
    if (config.relays.length > 0) return;
    const dbPath = join(tenexDir, "relay.sqlite");
    // Created private here: the relay's library would make it 0644 (its -wal and -shm follow it).
    ensurePrivateFile(dbPath);
    const opts = { host: config.embeddedRelay.host, port: config.embeddedRelay.port, dbPath, guard: embeddedRelayGuard(this.project) };
    const log = this.logger.child({ component: "relay" });
    // Loaded only when used: the relay implementation is a good part of a process's memory.
    this.embeddedStarting = config.embeddedRelay.inProcess
      ? import("../../adapters/relay/embedded-relay.js").then((m) => m.startEmbeddedRelay(opts))
      : import("../../adapters/relay/relay-process.js").then((m) => m.startRelayProcess({
        ...opts,
        onLog: (line) => log.warn("relay process", { line }),
        onExit: (detail) => this.problem("embedded_relay_exited", `${detail}; starting it again`),
      }));
    // Awaited in connectRelays; a start that fails before then must not be an unhandled rejection.
    this.embeddedStarting.catch(() => undefined);
  }

  private async connectRelays(): Promise<void> {
    const { config, relayAuth } = this.project;
    if (this.embeddedStarting) {
      this.embedded = await this.embeddedStarting;
      this.relayUrls = [this.embedded.url];
    } else {
      this.relayUrls = [...config.relays];
    }
    this.gateway = await NdkGateway.connect({
      relays: this.relayUrls, clock: this.clock, authKey: relayAuth.secretKey,
      maxFrameBytes: transportLimits(config.limits.maxEventBytes).clientMaxFrameBytes,
    });
  }

  private startLoops(orchestrator: KeySigner): void {
    const now = () => this.clock.now();
    const { project } = this;
    const { limits } = project.config;
    this.escalator = new Escalator({
      coordinate: project.coordinate, owner: project.owner.pubkey, agents: project.agents, threshold: limits.unreadThreshold,
      unreadCount: (pk) => this.index.unreadCount(pk, this.clock.now()),
      conversations: async () => {
        const out = [];
        for (const id of this.store.openTurnConversations()) {
          const conv = await this.store.get(id);
          if (!conv) continue;
          const problems = detectRoutingProblems(conv.turns, { repeatThreshold: limits.repeatRoutingThreshold, stallThreshold: limits.stallThreshold });
          out.push({ id, title: conv.title, phase: conv.phase.phase, root: conv.eventsById.get(id)?.ev, problems });
        }
        return out;
      },
      publish: (ev) => this.route.publish(project.orchestrator.pubkey, ev),
      nowSecs: () => Math.floor(this.clock.now() / 1000),
      // What was already told survives a restart: the owner is not told again about a problem still present.
      state: escalationState(project.tenexDir, (detail) => this.problem("escalation_state_unreadable", detail)),
    });
    this.backfillRetry = new BackgroundLoop("backfill-retry", RETRY_MS, async () => {
      const threads = await this.threads.retryFailed();
      await this.sync?.retryDue();
      // Thrown so that the loop backs off while a fetch keeps failing, like a back-fill.
      if (threads > 0) throw new BackfillIncompleteError(`${threads} thread fetches failed again`);
    }, now, RETRY_MAX_MS);
    const loops = [
      this.backfillRetry,
      new BackgroundLoop("outbox", 1_000, () => this.outbox.retryDue(), now),
      new BackgroundLoop("high-water", 1_000, () => this.sync?.flushMarks(), now),
      new BackgroundLoop("heartbeat", project.config.heartbeatSeconds * 1000,
        async () => void (await publishHeartbeat(this.gateway!, orchestrator, project.coordinate, project.agents, this.clock.now())), now),
      new BackgroundLoop("turn-timeouts", 5_000, () => this.timeoutTurns(), now),
      new BackgroundLoop("escalation", 30_000, () => this.escalator.check(), now),
    ];
    for (const l of loops) {
      this.loops.push(l);
      l.start(l.status.name === "heartbeat");
    }
  }

  private async timeoutTurns(): Promise<void> {
    for (const id of this.store.openTurnConversations()) {
      try {
        await this.route.inConversation(id, (conv, now) => ({ records: decideTimeouts(conv.turns, now), result: undefined }));
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
    }
  }

  /** The engine as the front desk reaches it (src/ports.ts): its reads (the caller closes them) and its commands. */
  ports(): EnginePorts {
    return { reads: engineReads(this), commands: engineCommands(this.route, this.store) };
  }

  /** What the start says once ready. */
  readiness(): { relays: string[]; ms: number; conversations: number } {
    return { relays: [...this.relayUrls], ms: (this.readyAt ?? 0) - this.startedAt, conversations: this.store.stats().known };
  }

  loopStatus() {
    return this.loops.map((l) => ({ ...l.status }));
  }

  /** Idempotent: every call returns the same promise. */
  stop(): Promise<void> {
    this.stopping ??= this.close();
    return this.stopping;
  }

  private async close(): Promise<void> {
    this.abort.abort();
    // The sync first: a retry loop waiting on a back-fill waits only until its next page.
    const syncStopped = this.sync?.stop();
    await Promise.all(this.loops.map((l) => l.stop()));
    await syncStopped;
    await this.runner?.idle();
    await this.queues.idle();
    await this.store?.indexed();
    await this.verifier?.close();
    await this.gateway?.close();
    // Started, but open() failed before it was awaited: it must not outlive the daemon.
    await (this.embedded ?? (await this.embeddedStarting?.catch(() => undefined)))?.close();
    await this.log?.close();
    // Closing the log flushed what was still queued (an outbox `sent` record, say): into the
    // index before it closes, or the clean-shutdown marker would let the next start skip it.
    await this.store?.indexed();
    this.sync?.flushMarks();
    this.index?.close();
    // The marker lets the next start skip reconciling the index with the logs: not if records
    // are missing from it.
    if (this.readyAt !== undefined && !this.indexIncomplete) {
      const fp = logFingerprint(this.project.tenexDir);
      writeFileSync(join(this.project.tenexDir, "clean-shutdown"), `${JSON.stringify({ at: this.clock.now(), ...fp })}\n`, { mode: PRIVATE_FILE });
    }
    this.releaseLock();
  }
}
