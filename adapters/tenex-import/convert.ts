// One TENEX conversation → the tenexd log records that, replayed, give the same conversation.
// Pure: no I/O, no clock; the importer decodes and verifies the history first.
//
// Order of the log: the events in history order (each `at` = created_at in ms), with the phase,
// turn and exec records merged in by their own timestamps (on a tie the event goes first: it is
// what caused them). Then what describes the end state rather than a moment: a phase record
// when TENEX's final phase is not where the transitions lead, read files, agent cursors, and
// the archive mark. Agents are named by slug in TENEX and by pubkey here: `agentsBySlug` maps
// them, and whatever names an unknown slug is left out with a warning.

import type { ArchiveRecord, CursorRecord, EventRecord, LogRecord, NewRecord, ReadFileRecord } from "../../src/records.js";
import type { NostrEvent, Phase } from "../../src/types.js";
import { closingPhaseRecord, execRecords, phaseRecords } from "./convert-timeline.js";
import { CompletionMatcher, turnRecords } from "./convert-turns.js";
import { normalizePhase, type ParsedConversation } from "./parse-conversation.js";
import type { TenexAgentState } from "./tenex-schema.js";

export interface ConvertInput {
  conversation: ParsedConversation;
  /** The decoded, verified history, aligned with `conversation.history`: undefined = rejected. */
  history: readonly (NostrEvent | undefined)[];
  archived: boolean;
  /** Agent slug → pubkey. */
  agentsBySlug: ReadonlyMap<string, string>;
}

export interface Converted {
  /** Numbered from 1: the whole log of a new conversation. */
  records: LogRecord[];
  /** Event records among them. */
  events: number;
  /** What was left out, and why. */
  warnings: string[];
}

type Draft<R> = Omit<R, "n">;

/** Merges records sorted by `at` into the events, which keep their history order. */
function merge(events: readonly Draft<EventRecord>[], others: readonly NewRecord[]): NewRecord[] {
  const out: NewRecord[] = [];
  let j = 0;
  for (const ev of events) {
    while (j < others.length && others[j]!.at < ev.at) out.push(others[j++]!);
    out.push(ev);
  }
  while (j < others.length) out.push(others[j++]!);
  return out;
}

/** The session TENEX kept for this agent: per conversation, or (later versions) per phase. */
function sessionOf(state: TenexAgentState, phase: Phase | undefined): string | undefined {
  if (state.claudeSessionId !== undefined) return state.claudeSessionId;
  const byPhase = Object.entries(state.claudeSessionsByPhase ?? {});
  return byPhase.find(([p]) => phase !== undefined && normalizePhase(p) === phase)?.[1];
}

interface CursorContext {
  agentsBySlug: ReadonlyMap<string, string>;
  /** Per history position: log position of the last event kept at or before it (0 = none). */
  seqAt: readonly number[];
  phase: Phase | undefined;
  at: number;
  warn: (message: string) => void;
}

/**
 * TENEX's `lastProcessedMessageIndex` counts the history entries an agent has processed, so the
 * cursor goes to the log position of the last of them (or of the last one kept, when that one
 * was rejected).
 */
function cursorRecords(states: readonly [string, TenexAgentState][], ctx: CursorContext): Draft<CursorRecord>[] {
  const out: Draft<CursorRecord>[] = [];
  for (const [slug, state] of states) {
    const agent = ctx.agentsBySlug.get(slug);
    if (!agent) {
      ctx.warn(`state of unknown agent "${slug}" skipped`);
      continue;
    }
    const seen = Math.min(state.lastProcessedMessageIndex, ctx.seqAt.length);
    const seq = seen > 0 ? ctx.seqAt[seen - 1]! : 0;
    const session = sessionOf(state, ctx.phase);
    if (seq === 0 && session === undefined) continue;
    out.push({ t: "cursor", at: ctx.at, agent, seq, ...(session !== undefined ? { session } : {}) });
  }
  return out;
}

export function convertConversation(input: ConvertInput): Converted {
  const { conversation: c, agentsBySlug } = input;
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);

  const events: Draft<EventRecord>[] = [];
  const keptAt: (string | undefined)[] = [];
  const seen = new Set<string>();
  input.history.forEach((ev, i) => {
    if (ev && seen.has(ev.id)) warn(`duplicate of event ${ev.id} at history #${i + 1} skipped`);
    else if (ev) {
      seen.add(ev.id);
      events.push({ t: "event", at: ev.created_at * 1000, ev, origin: "relay" });
    }
    keptAt.push(events[events.length - 1]?.ev.id);
  });

  const matcher = new CompletionMatcher(events.map((e) => e.ev));
  // Array.prototype.sort is stable: records with the same `at` keep the order they were made in
  // (a turn's start before its completions, a session's start before its stop).
  const others: NewRecord[] = [
    ...phaseRecords(c.transitions),
    ...turnRecords(c.turns, { agentsBySlug, matcher, warn }),
    ...execRecords(c.executionTime),
  ].sort((a, b) => a.at - b.at);
  const body = merge(events, others);

  const endAt = body.reduce((m, r) => Math.max(m, r.at), 0);
  const reached = body.reduce<Phase>((p, r) => (r.t === "phase" ? r.to : p), "chat");
  const nOf = new Map<string, number>();
  body.forEach((r, i) => r.t === "event" && nOf.set(r.ev.id, i + 1));
  const seqAt = keptAt.map((id) => (id === undefined ? 0 : nOf.get(id)!));

  const tail: NewRecord[] = [
    ...closingPhaseRecord(reached, c.phase, endAt),
    ...c.readFiles.map((path): Draft<ReadFileRecord> => ({ t: "read_file", at: endAt, path })),
    ...cursorRecords(c.agentStates, { agentsBySlug, seqAt, phase: c.phase ?? reached, at: endAt, warn }),
    ...(input.archived ? [{ t: "archive", at: endAt, archived: true } satisfies Draft<ArchiveRecord>] : []),
  ];
  const records = [...body, ...tail].map((r, i) => ({ ...r, n: i + 1 }) as LogRecord);
  return { records, events: events.length, warnings };
}
