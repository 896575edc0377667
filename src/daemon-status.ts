// The Director's view of a running daemon, as the read port gives it (`status`) and the API
// answers GET /api/v1/status: one plain document, the same for the API, the CLI's `status` and
// the tests. The engine fills it (daemon/engine/status.ts); its parts are the shapes the
// engine's parts report.

import type { Problem } from "./problem-list.js";
import type { MinutePoint } from "./dashboard/minute-series.js";
import type { AccessPolicy } from "./relay-guard/access.js";
import type { ConnectionLimits } from "./relay-guard/admission.js";
import type { ClientLimits } from "./relay-guard/client-limits.js";
import type { RefusalReason } from "./relay-guard/refusals.js";
import type { TransportLimits } from "./relay-guard/transport-limits.js";
import type { RoutingProblems } from "./routing-health.js";
import type { LatencySummary } from "./latency-window.js";
import type { Phase } from "./types.js";

export interface RelayHealth {
  url: string;
  connected: boolean;
  /** Epoch ms of the last event this relay delivered. */
  lastEventAt?: number;
  lastError?: string;
  /** Epoch ms of `lastError`. */
  lastErrorAt?: number;
  /** Connections made after the first one. */
  reconnects: number;
  eventsReceived: number;
  /** NIP-42: whether the relay asked this daemon to authenticate, and how its last answer went. */
  auth: RelayAuthHealth;
}

export interface RelayAuthHealth {
  asked: boolean;
  /** null until the relay answered an AUTH (or when none was sent: no key to answer with). */
  accepted: boolean | null;
  /** Why the relay refused the last AUTH. */
  refusal?: string;
}

export interface RelayCountersSnapshot {
  /** Connections open now. */
  connections: number;
  /** Connections open now that authenticated as one of the project's people. */
  authenticated: number;
  /** Connections accepted since start. */
  accepted: number;
  refused: Record<RefusalReason, number>;
}

export interface EmbeddedRelayStats extends RelayCountersSnapshot {
  limits: (TransportLimits & ConnectionLimits & ClientLimits & { inboundBytesPerSecond: number | null }) | null;
  auth: AccessPolicy["auth"] | null;
  /** The verifier of the ids and signatures it is sent (adapters/relay/fast-event-checks.ts). */
  verifier?: string;
  /** When the relay runs in a process of its own (relay-process.ts): which, and how often it was started again. */
  process?: { pid: number | null; restarts: number };
}

export interface WriterStats {
  /** append() calls that resolved. */
  appends: number;
  records: number;
  flushes: number;
  /** fdatasync of files plus fsync of directories. */
  syncs: number;
  bytes: number;
}

/** A line set aside: where it was in the log, in bytes (and its 1-based number, when known). */
export interface SetAsideLine {
  line?: number;
  offset: number;
  /** Its length, without the newline. */
  bytes: number;
  why: string;
}

export interface DamageRecord {
  /** What `tenexd damage --clear` takes: `<first 8 of the conversation id>-<ms>`. */
  id: string;
  /** Lines set aside from a log that stays, or a log moved aside whole (no line of it parsed). */
  kind: "damaged_lines" | "quarantined";
  conversationId: string;
  /** The log, relative to the data directory. */
  log: string;
  /** When it was found (epoch ms). */
  at: number;
  detail: string;
  /** The lines set aside, by their place in the log as it was (empty for a whole log). */
  lines: SetAsideLine[];
  /** Where the set-aside bytes are, relative to the data directory. */
  savedTo: string;
  /** When an operator cleared it; a cleared record is no longer reported. */
  clearedAt?: number;
  /** The record file itself does not parse (this one stands in for it). */
  unreadable?: true;
}

export interface CatchupResult {
  fetched: number;
  pages: number;
  /** Newest created_at seen, to move the high-water mark. */
  newest: number | undefined;
  /**
   * True when every filter was paged down to `since` and every second too full to page through
   * was seen whole (not stopped, no query ended early, no part left that could not be split).
   */
  complete: boolean;
  /** Why it is not complete. */
  reason?: string;
}

/** How a relay's last back-fill ended, for the status. */
export interface RelayBackfillState {
  url: string;
  complete: boolean;
  reason?: string;
  /** When it ended. */
  at: number;
  /** The created_at it started from (null: everything the relay held). */
  since: number | null;
  fetched: number;
}

export interface LoopStatus {
  name: string;
  runs: number;
  failures: number;
  lastRunAt?: number;
  /** When the next run is due (absent while running or stopped). */
  nextRunAt?: number;
  lastError?: { at: number; message: string };
}

export interface RunFailure {
  at: number;
  agent: string;
  conversationId: string;
  kind: string;
  message: string;
}

/** A command agent's run under way. */
export interface ActiveRun {
  runId: string;
  agent: string;
  conversationId: string;
  /** Epoch ms. */
  startedAt: number;
}

export interface FinishedRun extends ActiveRun {
  endedAt: number;
  /** ok, failed, or stopped (the Director stopped it). */
  outcome: "ok" | "failed" | "stopped";
  error?: string;
}

export interface Rejection {
  at: number;
  reason: string;
  detail: string;
  eventId?: string;
  relay?: string;
}

export interface ReconcileReport {
  checked: number;
  /** Logs opened: their size differed from the one the index recorded, or it recorded none. */
  opened: number;
  /** Conversations whose missing tail was applied. */
  repaired: { id: string; from: number; to: number }[];
  /**
   * Conversations re-indexed whole: the log ends before what the index holds, or is shorter
   * than the size recorded with it (cut or rewritten since), or damaged lines were set aside
   * when it was read, so what was indexed may be gone.
   */
  reindexed: string[];
  /** Index entries with no log behind them, dropped. */
  dropped: string[];
  /** Conversations whose log could not be read (quarantined): reported by the log. */
  unreadable: { id: string; error: string }[];
}

/** How this start found the project (see docs/architecture.md, "Recovery at start"). */
export interface Startup {
  /** The last stop was clean and the logs are as it left them. */
  cleanStart: boolean;
  /** The first start of a new project: nothing to recover. */
  firstStart?: boolean;
  /** The index was rebuilt from the logs. */
  rebuilt?: boolean;
  reconcile?: ReconcileReport;
}

/** The ingest counters: by outcome and reason, with the last rejections verbatim. */
export interface IngestCounts {
  accepted: number;
  duplicates: number;
  /** Copies of the daemon's own events sent back by a relay: expected, not a fault. */
  echoes: number;
  rejected: Record<string, number>;
  rejectedTotal: number;
  ignored: Record<string, number>;
  recentRejections: Rejection[];
}

/** The last back-fill: what it fetched in all and from each relay. */
export type LastCatchup = CatchupResult & { quiet: boolean; ms: number; at: number; relays: Record<string, CatchupResult> };

export interface StuckTurnView {
  conversationId: string;
  title: string;
  turn: number;
  phase: Phase;
  startedAt: number;
  deadline: number | null;
  overdue: boolean;
  /** Slugs of the routed agents that have not completed. */
  waitingFor: string[];
  problems: RoutingProblems;
}

export interface DaemonStatus {
  pid: number;
  project: { coordinate: string; title: string; dir: string };
  startedAt: number;
  uptimeMs: number;
  readyMs: number | null;
  startup: Startup;
  relays: RelayHealth[];
  /** How far behind each relay the daemon is: the newest created_at it has taken from it. */
  lag: { url: string; highWater: number | null; behindSeconds: number | null }[];
  /** The embedded relay's url, when it runs one. */
  embeddedRelay: string | null;
  embeddedRelayGuard: EmbeddedRelayStats | null;
  lastCatchup: LastCatchup | null;
  /** Each relay's last back-fill: complete, or why not and when it is tried again. */
  backfill: { relays: (RelayBackfillState & { retryAt: number | null })[]; retryFailures: number };
  ingest: IngestCounts;
  queues: { conversations: number; queued: number; running: number };
  store: { cachedConversations: number; cachedEvents: number; cachedBytes: number; known: number };
  /**
   * Where the daemon's memory is (process.memoryUsage(), bytes), and the handing back of freed
   * memory (glibc's malloc_trim: after the start and each back-fill; `runs`, and how many of them
   * had some to hand back; `backend` null with the reason when there is none).
   */
  memory: {
    rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number;
    trim: { backend: "malloc_trim" | null; fallback: string | null; runs: number; released: number };
  };
  agents: { runs: number; failures: number; running: number; lastFailure: RunFailure | undefined };
  /** The command agents' runs under way now, oldest first. */
  runs: ActiveRun[];
  /** Each agent's last finished run since the daemon started (slug → run). */
  lastRuns: Record<string, FinishedRun>;
  /**
   * How long the last runs took, step by step (ms, src/latency-window.ts): `trigger`, from an
   * event handed to the route to its agent's process holding its input; `answer`, from the process's end
   * to its event durable; `publish`, from an event the daemon publishes queued to a relay's OK.
   */
  latency: { trigger: LatencySummary; answer: LatencySummary; publish: LatencySummary };
  /** Inbound events per minute over the last hour (src/dashboard/minute-series.ts), the last point the minute under way. */
  perMinute: MinutePoint[];
  /** Every agent's unread count, and the ones above `limits.unreadThreshold`. */
  unread: { threshold: number; byAgent: { slug: string; pubkey: string; unread: number }[]; overThreshold: string[] };
  /** What the owner was told about and has not cleared: agents (slugs) and conversations. */
  escalated: { agents: string[]; conversations: string[] };
  catchingUp: boolean;
  /** How agents' programs are started (chosen at start: posix-spawn or child-process) and, when it is the fallback, why. */
  spawner: { backend: string; fallback: string | null };
  /** Which verifier checks signatures (chosen at start) and, when it is the fallback, why. */
  verifier: { backend: string; fallback: string | null; poolRunning: boolean; inline: number; pooled: number; poolStarts: number };
  outbox: { pending: number; sent: number; oldestAttempts: number; lastError: string | undefined };
  loops: LoopStatus[];
  /** The conversation log's writer. */
  log: WriterStats;
  /** One entry per cause with its repeat count; `at` (the last time) beside `last` for readers of the earlier shape. */
  problems: (Problem & { at: number })[];
  /** The damage recorded in the logs and not cleared (read from .tenex/quarantine/). */
  damage: DamageRecord[];
  /** Open orchestrator turns, and the ones past their deadline or whose routing loops or stalls. */
  turns: { open: number; stuck: StuckTurnView[] };
}
