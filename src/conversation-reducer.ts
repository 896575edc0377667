// The only code that changes a Conversation: the fold of one log record into it, in place
// (applyRecord), from the empty state (emptyConversation) over a whole log (replay).
// Appending is O(1) amortised; an event that arrives out of order costs a binary search for
// its place (plus the array shift; event-order.ts). Replaying a log through applyRecord
// rebuilds the live state, the order of its events included.

import { seenByOwnEvent } from "./agent-seen.js";
import { ensureView } from "./agent-view.js";
import type { Conversation } from "./conversation-state.js";
import { projectOf } from "./coordinate.js";
import { DomainError } from "./errors.js";
import { emptyOrder, insertOrdered } from "./event-order.js";
import { applyExecRecord, initialExecState } from "./execution-time.js";
import { applyPhaseRecord, initialPhaseState } from "./phases.js";
import type { EventRecord, LogRecord } from "./records.js";
import { titleOf } from "./tags.js";
import { applyTurnRecord, initialTurnsState } from "./turns.js";
import type { NostrEvent } from "./types.js";

/** A record whose position is not after the last one: applying it would fork the state from the log. */
export class RecordSequenceError extends DomainError {
  override name = "RecordSequenceError";
  constructor(conversationId: string, after: number, got: number) {
    super(`conversation ${conversationId}: expected a record after n=${after}, got n=${got}`, "record_sequence");
  }
}

const TITLE_MAX = 80;

/** The title tag, else the first line of the content cut to 80 characters. */
export function titleFor(ev: NostrEvent): string {
  const tagged = titleOf(ev.tags)?.trim();
  if (tagged) return tagged;
  const firstLine = ev.content.trimStart().split("\n", 1)[0] ?? "";
  return firstLine.slice(0, TITLE_MAX).trimEnd();
}

function applyEvent(conv: Conversation, rec: EventRecord): void {
  // A duplicate never gets this far (decideAddEvent filters it), but a hand-written log might
  // hold one: it must not appear twice.
  if (conv.eventsById.has(rec.ev.id)) return;
  const { ev } = rec;
  const rootSeen = conv.rootKind !== undefined;
  insertOrdered(conv.events, conv.eventsById, conv.order, rec);
  conv.participants.add(ev.pubkey);
  // Its author had seen the conversation up to what it answers (agent-seen.ts).
  const view = ensureView(conv, ev.pubkey);
  view.cursor = Math.max(view.cursor, seenByOwnEvent(conv, rec));
  conv.updatedAt = Math.max(conv.updatedAt, ev.created_at);
  if (ev.id === conv.id) {
    conv.rootKind = ev.kind;
    conv.title = titleFor(ev);
    conv.createdAt = ev.created_at;
    conv.project = projectOf(ev.tags) ?? conv.project;
    return;
  }
  if (!rootSeen) conv.createdAt = conv.createdAt === 0 ? ev.created_at : Math.min(conv.createdAt, ev.created_at);
  if (conv.project === "") conv.project = projectOf(ev.tags) ?? "";
}

/**
 * Folds one record into the conversation. Records must come in log order: n > lastN. Usually
 * n = lastN + 1; a gap is where a damaged line was set aside (the lines around it keep their
 * positions, so cursors and read marks, which name positions, still mean what they meant).
 */
export function applyRecord(conv: Conversation, rec: LogRecord): void {
  if (rec.n <= conv.lastN) throw new RecordSequenceError(conv.id, conv.lastN, rec.n);
  conv.lastN = rec.n;
  switch (rec.t) {
    case "event":
      return applyEvent(conv, rec);
    case "phase":
    case "phase_refused":
    case "read_file":
      return applyPhaseRecord(conv.phase, rec);
    case "turn_start":
    case "completion":
    case "turn_end":
      return applyTurnRecord(conv.turns, rec);
    case "exec":
      return applyExecRecord(conv.exec, rec);
    case "cursor": {
      const view = ensureView(conv, rec.agent);
      view.cursor = Math.max(view.cursor, rec.seq);
      if (rec.session !== undefined) view.session = rec.session;
      return;
    }
    case "read": {
      const view = ensureView(conv, rec.agent);
      view.readSeq = Math.max(view.readSeq, rec.seq);
      return;
    }
    case "ack":
      ensureView(conv, rec.agent).acks.add(rec.eventId);
      return;
    case "status":
      conv.status = rec.status;
      return;
    case "archive":
      conv.archived = rec.archived;
      return;
    case "sent":
      // Outbox bookkeeping only: the index tracks deliveries, the aggregate does not.
      return;
    case "run_pending":
    case "agent_run":
      // Audit trail only: the index and the status read it; the aggregate does not need it.
      return;
  }
}

/** Applies records in order (see applyRecord). */
export function applyRecords(conv: Conversation, records: readonly LogRecord[]): void {
  for (const r of records) applyRecord(conv, r);
}

export function emptyConversation(id: string, project = ""): Conversation {
  return {
    id,
    title: "",
    project,
    createdAt: 0,
    updatedAt: 0,
    events: [],
    eventsById: new Map(),
    order: emptyOrder(),
    lastN: 0,
    phase: initialPhaseState(),
    turns: initialTurnsState(),
    exec: initialExecState(),
    views: new Map(),
    status: "open",
    archived: false,
    participants: new Set(),
  };
}

/** Rebuilds a conversation from its whole log. */
export function replay(id: string, records: readonly LogRecord[]): Conversation {
  const conv = emptyConversation(id);
  applyRecords(conv, records);
  return conv;
}
