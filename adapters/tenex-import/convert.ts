// One TENEX conversation → what tenexd's log must hold for it: the records (src/merge-records.ts
// then keeps those a log does not hold yet, so a new conversation and a top-up of one imported
// before are the same operation). Pure: no I/O, no clock; the importer decodes and verifies the
// history first.
//
// Order of the log: the events in history order, TENEX's arrival order (each `at` is its
// created_at in ms, never below the one before, so `at` and position agree on that order), with
// the phase, turn and exec records merged in by their own timestamps (on a tie the event goes
// first: it is what caused them), then the read files. What describes the end state rather than
// a moment follows: a phase record when TENEX's final phase is not where the transitions lead,
// what each agent had processed (cursor and read mark), the archive mark.
// Agents are named by slug in TENEX and by pubkey here: `agentsBySlug` maps them, and whatever
// names an unknown slug is left out, counted in one warning per conversation.

import { stamp } from "../../src/conversation.js";
import { emptyConversation } from "../../src/conversation-reducer.js";
import { mergeRecords, type MergeSource, type ProcessedMark } from "../../src/merge-records.js";
import type { EventRecord, LogRecord, NewRecord, ReadFileRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { execRecords, phaseRecords } from "./convert-timeline.js";
import {
  CompletionMatcher, noCompletions, noteUnknown, turnRecords, type CompletionCounts, type TurnTally, type UnknownAgents,
} from "./convert-turns.js";
import { normalizePhase, type ParsedConversation } from "./parse-conversation.js";
import type { TenexAgentState } from "./tenex-schema.js";
import { toMs } from "./time.js";

export interface ConvertInput {
  conversation: ParsedConversation;
  /** The decoded, verified history, aligned with `conversation.history`: undefined = rejected. */
  history: readonly (NostrEvent | undefined)[];
  archived: boolean;
  /** Agent slug → pubkey. */
  agentsBySlug: ReadonlyMap<string, string>;
  /** The project's orchestrator. TENEX kept no state for it: it read the routing context instead. */
  orchestrator: string;
}

export interface Conversion {
  /** Everything the log must hold for this conversation. */
  source: MergeSource;
  /** Distinct valid events. */
  events: number;
  completions: CompletionCounts;
  tally: TurnTally;
  /** What was left out, and why. */
  warnings: string[];
}

type Draft<R> = Omit<R, "n">;

const CLOSING_REASON = "imported from TENEX: phase set without a recorded transition";

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
function sessionOf(state: TenexAgentState, phase: string | undefined): string | undefined {
  if (state.claudeSessionId !== undefined) return state.claudeSessionId;
  const byPhase = Object.entries(state.claudeSessionsByPhase ?? {});
  return byPhase.find(([p]) => phase !== undefined && normalizePhase(p) === phase)?.[1];
}

interface History {
  events: Draft<EventRecord>[];
  /** Per history entry: index in `events` of the last event kept at or before it (-1 = none). */
  keptAt: number[];
}

function historyEvents(history: readonly (NostrEvent | undefined)[], warn: (m: string) => void): History {
  const events: Draft<EventRecord>[] = [];
  const keptAt: number[] = [];
  const seen = new Set<string>();
  let at = 0;
  history.forEach((ev, i) => {
    if (ev && seen.has(ev.id)) warn(`duplicate of event ${ev.id} at history #${i + 1} skipped`);
    else if (ev) {
      seen.add(ev.id);
      at = Math.max(at, ev.created_at * 1000);
      events.push({ t: "event", at, ev, origin: "relay" });
    }
    keptAt.push(events.length - 1);
  });
  return { events, keptAt };
}

interface MarkContext {
  input: ConvertInput;
  history: History;
  unknown: UnknownAgents;
}

/**
 * What each agent had processed, as the index of the last such event in `events`:
 * - TENEX's `lastProcessedMessageIndex` counts the history entries an agent was shown (the last
 *   kept one of them, when that entry was refused);
 * - the orchestrator, which TENEX never gave a state, processed each event that woke it before
 *   deciding its turn: everything created up to its last turn;
 * - an agent's own event shows it had seen what came before it.
 * The furthest of these counts.
 */
function processedMarks(ctx: MarkContext): ProcessedMark[] {
  const { input, history: { events, keptAt } } = ctx;
  const c = input.conversation;
  const best = new Map<string, { index: number; session?: string }>();
  const raise = (agent: string, index: number, session?: string) => {
    const prev = best.get(agent);
    const s = session ?? prev?.session;
    best.set(agent, { index: Math.max(index, prev?.index ?? -1), ...(s !== undefined ? { session: s } : {}) });
  };

  for (const [slug, state] of c.agentStates) {
    const agent = input.agentsBySlug.get(slug);
    if (!agent) {
      noteUnknown(ctx.unknown, slug, "states");
      continue;
    }
    const seen = Math.min(state.lastProcessedMessageIndex, keptAt.length);
    raise(agent, seen > 0 ? keptAt[seen - 1]! : -1, sessionOf(state, c.phase));
  }
  const lastTurn = Math.max(-Infinity, ...c.turns.map((t) => toMs(t.timestamp)));
  let woke = -1;
  events.forEach((e, i) => {
    if (e.ev.created_at * 1000 <= lastTurn) woke = i;
  });
  if (woke >= 0) raise(input.orchestrator, woke);
  const agents = new Set(input.agentsBySlug.values());
  events.forEach((e, i) => {
    if (agents.has(e.ev.pubkey)) raise(e.ev.pubkey, i);
  });

  const out: ProcessedMark[] = [];
  for (const [agent, { index, session }] of best) {
    if (index < 0 && session === undefined) continue;
    out.push({ agent, ...(index >= 0 ? { eventId: events[index]!.ev.id } : {}), ...(session !== undefined ? { session } : {}) });
  }
  return out;
}

function unknownWarnings(unknown: UnknownAgents, tally: TurnTally): string[] {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const out = [...unknown].map(([slug, u]) => {
    const parts = [
      u.turns > 0 ? plural(u.turns, "turn") : "", u.completions > 0 ? plural(u.completions, "completion") : "",
      u.states > 0 ? plural(u.states, "agent state") : "",
    ].filter(Boolean);
    return `unknown agent "${slug}" left out of ${parts.join(", ")}`;
  });
  if (tally.skipped > 0) out.push(`${plural(tally.skipped, "turn")} skipped: none of their agents is known`);
  return out;
}

export function convertConversation(input: ConvertInput): Conversion {
  const { conversation: c, agentsBySlug } = input;
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);

  const history = historyEvents(input.history, warn);
  const { events } = history;
  const counts = noCompletions();
  const tally: TurnTally = { ends: 0, skipped: 0 };
  const unknown: UnknownAgents = new Map();
  const eventAt = new Map(events.map((e) => [e.ev.id, e.at]));
  const matcher = new CompletionMatcher(events.map((e) => e.ev));
  // Array.prototype.sort is stable: records with the same `at` keep the order they were made in
  // (a turn's start before its completions, a session's start before its stop).
  const others: NewRecord[] = [
    ...phaseRecords(c.transitions),
    ...turnRecords(c.turns, { agentsBySlug, matcher, eventAt, counts, unknown, tally }, warn),
    ...execRecords(c.executionTime),
  ].sort((a, b) => a.at - b.at);
  const body = merge(events, others);
  const endAt = body.reduce((m, r) => Math.max(m, r.at), 0);
  const readFiles = c.readFiles.map((path): Draft<ReadFileRecord> => ({ t: "read_file", at: endAt, path }));
  const marks = events.length > 0 ? processedMarks({ input, history, unknown }) : [];
  warnings.push(...unknownWarnings(unknown, tally));

  return {
    source: {
      records: [...body, ...readFiles], marks, archived: input.archived, at: endAt,
      ...(c.phase !== undefined ? { finalPhase: { phase: c.phase, reason: CLOSING_REASON } } : {}),
    },
    events: events.length, completions: counts, tally, warnings,
  };
}

/** The whole log of a conversation new to tenexd, numbered from 1. */
export function newConversationLog(id: string, conversion: Conversion): LogRecord[] {
  const empty = emptyConversation(id);
  return stamp(empty, mergeRecords(empty, conversion.source));
}
