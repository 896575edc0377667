// The conversation log is a sequence of records: every signed event received or published,
// and every state change. Conversation state is a pure fold over these records
// (see conversation-reducer.ts), so replaying a log rebuilds exactly the live state.
//
// Every record carries `n`: its position in its conversation's log (1, 2, 3, …). An event's
// `n` is its arrival sequence, which is what agent cursors point at (never array positions).
// `at` is epoch milliseconds from the injected clock.

import type { NostrEvent, Phase } from "./types.js";

interface Base {
  n: number;
  at: number;
}

/** A signed event, verbatim. `origin` says whether it came from a relay or was published here. */
export interface EventRecord extends Base {
  t: "event";
  ev: NostrEvent;
  origin: "relay" | "local";
}

export interface PhaseRecord extends Base {
  t: "phase";
  from: Phase;
  to: Phase;
  /** Pubkey of whoever asked for the change. */
  by: string;
  /** The transition message, kept byte for byte. */
  message: string;
  reason: string;
  /** Event that carried the request, when there was one. */
  eventId?: string;
  /** Turn number this phase change belongs to, when the orchestrator routed it. */
  turn?: number;
}

export interface PhaseRefusedRecord extends Base {
  t: "phase_refused";
  from: Phase;
  to: Phase;
  by: string;
  message: string;
  /** Why it was refused (e.g. "transition plan→chat is not allowed"). */
  reason: string;
  eventId?: string;
}

export interface TurnStartRecord extends Base {
  t: "turn_start";
  turnId: string;
  phase: Phase;
  /** Pubkeys of the agents routed in this turn. */
  agents: string[];
  reason: string;
  /** Deadline (epoch ms) after which the turn times out, if any. */
  deadline?: number;
}

export interface CompletionRecord extends Base {
  t: "completion";
  turnId: string;
  /** The `tool=complete` event id: completions are idempotent by this key. */
  eventId: string;
  agent: string;
  message: string;
}

export interface TurnEndRecord extends Base {
  t: "turn_end";
  turnId: string;
  status: "completed" | "timeout" | "cancelled";
  reason?: string;
}

/** An agent's view moved: it has now seen everything up to log position `seq`. */
export interface CursorRecord extends Base {
  t: "cursor";
  agent: string;
  seq: number;
  /** Claude session id to keep for this agent, when the trigger carried one. */
  session?: string;
}

/** Read mark (unread = messages after it) or a per-message ack. */
export interface ReadRecord extends Base {
  t: "read";
  agent: string;
  /** Log position up to which the agent has read. */
  seq: number;
  /** A stop request (kind 24134) marked a mailbox agent's pending work done: the request and its author. */
  stoppedBy?: { eventId?: string; by: string };
}

export interface AckRecord extends Base {
  t: "ack";
  agent: string;
  eventId: string;
}

export interface StatusRecord extends Base {
  t: "status";
  status: "open" | "closed" | "completed";
  by?: string;
  reason?: string;
}

export interface ArchiveRecord extends Base {
  t: "archive";
  archived: boolean;
}

/** Execution-time sessions: start, heartbeat (proof of life), stop. */
export interface ExecRecord extends Base {
  t: "exec";
  op: "start" | "beat" | "stop";
}

/** Outbox bookkeeping: a locally published event was accepted by a relay. */
export interface SentRecord extends Base {
  t: "sent";
  eventId: string;
  relay: string;
}

/**
 * An agent is due to run on a trigger: written with the trigger itself, so a crash between the
 * acknowledgement and the run cannot lose the run (the next start runs what is still pending).
 */
export interface RunPendingRecord extends Base {
  t: "run_pending";
  agent: string;
  trigger: string;
}

/**
 * One run of an agent on a trigger: the audit trail of what the daemon executed. A failed run
 * (timeout, crash, bad output) is data, recorded here and in the status, never fatal. A run
 * ended by a stop request (kind 24134) is `stopped`, with the request and its author.
 */
export interface AgentRunRecord extends Base {
  t: "agent_run";
  agent: string;
  trigger: string;
  outcome: "ok" | "failed" | "stopped";
  durationMs: number;
  error?: { kind: string; message: string };
  /** Who stopped the run: a stop request (kind 24134) and its author, or the owner from the dashboard (no event). */
  stoppedBy?: { eventId?: string; by: string };
}

/** Read files noted by agents (cleared by reflection→chat). */
export interface ReadFileRecord extends Base {
  t: "read_file";
  path: string;
}

export type LogRecord =
  | EventRecord
  | PhaseRecord
  | PhaseRefusedRecord
  | TurnStartRecord
  | CompletionRecord
  | TurnEndRecord
  | CursorRecord
  | ReadRecord
  | AckRecord
  | StatusRecord
  | ArchiveRecord
  | ExecRecord
  | SentRecord
  | RunPendingRecord
  | AgentRunRecord
  | ReadFileRecord;

export type RecordType = LogRecord["t"];

/** A record before the conversation assigns its position. */
export type NewRecord = LogRecord extends infer R ? (R extends LogRecord ? Omit<R, "n"> : never) : never;
