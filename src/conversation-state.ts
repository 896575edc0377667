// The in-memory shape of one conversation: the fold of its log records.
//
// Discipline: `decide*` functions elsewhere in src/ are pure (state + input + time in, records
// out). Only `applyRecord` (conversation-reducer.ts) changes a Conversation, in place, so an
// append stays O(1) however long the history is. Replaying the log through applyRecord yields
// exactly the state the live daemon had.

import type { EventOrder } from "./event-order.js";
import type {
  CompletionRecord, EventRecord, PhaseRecord, PhaseRefusedRecord,
} from "./records.js";
import type { Phase } from "./types.js";

/** An event in a conversation, with its arrival position `n` in the log. */
export type StoredEvent = EventRecord;

export interface PhaseState {
  phase: Phase;
  transitions: PhaseRecord[];
  refused: PhaseRefusedRecord[];
  readFiles: string[];
}

export type TurnStatus = "open" | "completed" | "timeout" | "cancelled";

export interface Turn {
  turnId: string;
  /** 1-based turn number within the conversation. */
  number: number;
  phase: Phase;
  agents: string[];
  reason: string;
  startedAt: number;
  deadline?: number;
  /** Keyed by completion event id, so the same completion counts once. */
  completions: Map<string, CompletionRecord>;
  status: TurnStatus;
  endedAt?: number;
  endReason?: string;
}

export interface TurnsState {
  turns: Turn[];
  /** Index of turns by id. */
  byId: Map<string, Turn>;
}

export interface ExecState {
  /** Closed sessions, summed, in ms. */
  totalMs: number;
  /** Start of the open session, if one is open. */
  openSince?: number;
  /** Last proof of life of the open session (start or heartbeat). */
  lastBeat?: number;
}

/** One agent's view of the conversation, keyed by pubkey. */
export interface AgentView {
  pubkey: string;
  /** Log position up to which the agent has seen the conversation (0 = never looked). */
  cursor: number;
  /** Claude session id to resume for this agent. */
  session?: string;
  /** Log position up to which the agent has read (unread tracking). */
  readSeq: number;
  /** Event ids the agent has acknowledged. */
  acks: Set<string>;
}

export type ConversationStatus = "open" | "closed" | "completed";

export interface Conversation {
  /** Id of the root event (kind 11 or 1934). */
  id: string;
  /** Kind of the root, once known (a reply can arrive before its root). */
  rootKind?: number;
  title: string;
  /** Full project coordinate `31933:<owner>:<d>`. */
  project: string;
  /** created_at of the root, or of the first event seen when the root is still missing. */
  createdAt: number;
  /** created_at of the newest event. */
  updatedAt: number;
  /** Events in conversation order (event-order.ts): never before what they answer, then created_at, then arrival. */
  events: StoredEvent[];
  /** The keys and bookkeeping behind that order. */
  order: EventOrder;
  /** Index of events by id. */
  eventsById: Map<string, StoredEvent>;
  /** Position of the last record applied (the log's length). */
  lastN: number;
  phase: PhaseState;
  turns: TurnsState;
  exec: ExecState;
  views: Map<string, AgentView>;
  status: ConversationStatus;
  archived: boolean;
  /** Pubkeys of everyone who authored an event here. */
  participants: Set<string>;
}

/**
 * The conversation's index row as of one moment: taken when records are committed, so the index
 * never stores fields of records that were not yet durable when it was written.
 */
export interface ConversationRow {
  project: string;
  title: string;
  phase: string;
  status: ConversationStatus;
  archived: boolean;
  rootKind?: number;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  lastN: number;
  execMs: number;
}

// Taken at every commit: a plain literal (a spread here made a temporary object each time).
export function conversationRow(c: Conversation): ConversationRow {
  const row: ConversationRow = {
    project: c.project, title: c.title, phase: c.phase.phase, status: c.status, archived: c.archived,
    createdAt: c.createdAt, updatedAt: c.updatedAt, messageCount: c.events.length, lastN: c.lastN, execMs: c.exec.totalMs,
  };
  if (c.rootKind !== undefined) row.rootKind = c.rootKind;
  return row;
}
