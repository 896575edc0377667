// The pure decisions that produce a conversation's records (its creation and replay are
// conversation-reducer.ts). Every decide* function reads state and returns records without
// `n`; the caller stamps them (stamp), appends them to the log and applies them (applyRecord),
// in that order of durability.

import type { CursorMove } from "./agent-messages.js";
import type { Conversation, ConversationStatus } from "./conversation-state.js";
import { NotFoundError } from "./errors.js";
import { mapPacked } from "./map-packed.js";
import type {
  AckRecord, ArchiveRecord, CursorRecord, EventRecord, LogRecord, NewRecord, ReadRecord, StatusRecord,
} from "./records.js";
import type { NostrEvent } from "./types.js";

/** Gives new records the next log positions of `conv` (which is not changed). */
export function stamp(conv: Conversation, records: readonly NewRecord[]): LogRecord[] {
  return mapPacked(records, (r, i) => ({ ...r, n: conv.lastN + 1 + i }) as LogRecord);
}

type New<R> = Omit<R, "n">;

/** The event, unless the conversation already holds it (relays repeat themselves). */
export function decideAddEvent(
  conv: Conversation | undefined, ev: NostrEvent, origin: "relay" | "local", now: number,
): New<EventRecord>[] {
  if (conv?.eventsById.has(ev.id)) return [];
  return [{ t: "event", at: now, ev, origin }];
}

export interface StatusChange {
  by?: string;
  reason?: string;
}

function decideStatus(conv: Conversation, status: ConversationStatus, change: StatusChange, now: number): New<StatusRecord>[] {
  if (conv.status === status) return [];
  return [{
    t: "status", at: now, status,
    ...(change.by !== undefined ? { by: change.by } : {}),
    ...(change.reason !== undefined ? { reason: change.reason } : {}),
  }];
}

export const decideClose = (conv: Conversation, change: StatusChange, now: number) =>
  decideStatus(conv, "closed", change, now);
export const decideReopen = (conv: Conversation, change: StatusChange, now: number) =>
  decideStatus(conv, "open", change, now);
export const decideComplete = (conv: Conversation, change: StatusChange, now: number) =>
  decideStatus(conv, "completed", change, now);

const decideArchived = (conv: Conversation, archived: boolean, now: number): New<ArchiveRecord>[] =>
  conv.archived === archived ? [] : [{ t: "archive", at: now, archived }];

export const decideArchive = (conv: Conversation, now: number) => decideArchived(conv, true, now);
export const decideRestore = (conv: Conversation, now: number) => decideArchived(conv, false, now);

/** Moves an agent's cursor forward (never back) and records a new claude session. */
export function decideCursor(conv: Conversation, move: CursorMove, now: number): New<CursorRecord>[] {
  const view = conv.views.get(move.agent);
  const cursor = view?.cursor ?? 0;
  const newSession = move.session !== undefined && move.session !== view?.session;
  if (move.seq <= cursor && !newSession) return [];
  return [{
    t: "cursor", at: now, agent: move.agent, seq: Math.max(cursor, move.seq),
    ...(move.session !== undefined ? { session: move.session } : {}),
  }];
}

/** Read mark up to `seq`, never beyond the log's end, never back. */
export function decideRead(conv: Conversation, agent: string, seq: number, now: number): New<ReadRecord>[] {
  const target = Math.min(seq, conv.lastN);
  if (target <= (conv.views.get(agent)?.readSeq ?? 0)) return [];
  return [{ t: "read", at: now, agent, seq: target }];
}

/**
 * Where a mark goes: the given position, else the last message's. Not the log's end: the mark's
 * own record lands there, so "up to the end" would move every time and never be done.
 */
export function markPosition(conv: Conversation, upTo: number | undefined): number {
  if (upTo !== undefined) return Math.min(upTo, conv.lastN);
  let last = 0;
  for (const e of conv.events) last = Math.max(last, e.n);
  return last;
}

export function decideAck(conv: Conversation, agent: string, eventId: string, now: number): New<AckRecord>[] {
  if (!conv.eventsById.has(eventId)) throw new NotFoundError(`event in conversation ${conv.id}`, eventId);
  if (conv.views.get(agent)?.acks.has(eventId)) return [];
  return [{ t: "ack", at: now, agent, eventId }];
}
