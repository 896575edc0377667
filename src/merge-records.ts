// Records brought in from another store (a TENEX import) merged into a conversation that may
// already hold some of them. Each record is kept only when the conversation does not have it
// yet, judged by the record's own identity, so merging the same source twice adds nothing and
// merging a source that grew adds exactly what is new:
// - an event by its id;
// - a phase transition by (time, from, to, by, message); a read file by its path;
// - a turn by its id, a completion by (turn, event id), a turn's end once per turn;
// - execution time by its total: the source's sessions when the conversation has none, else
//   one session for what the source counts beyond the conversation's total;
// - the status when it differs from the conversation's; the archive flag when the source has
//   the conversation archived and the log does not;
// - what an agent has processed (a mark: the id of the last event it processed) as a cursor
//   and a read mark, only forward.
// Pure: the caller reads the log, replays it, and appends what this returns.

import type { Conversation } from "./conversation-state.js";
import type { CursorRecord, ExecRecord, NewRecord, PhaseRecord, ReadRecord } from "./records.js";
import type { Phase } from "./types.js";

type New<R> = Omit<R, "n">;

/** An agent processed everything up to and including `eventId` (nothing yet when absent). */
export interface ProcessedMark {
  agent: string;
  eventId?: string;
  session?: string;
}

export interface MergeSource {
  /** Events, phases, turns, execution time, read files: in the order of the log to write. */
  records: readonly NewRecord[];
  marks: readonly ProcessedMark[];
  /** The phase the source ended in; a closing transition is added when the merged log does not reach it. */
  finalPhase?: { phase: Phase; reason: string };
  /** The source has the conversation archived (a merge archives, it never restores). */
  archived: boolean;
  /** Time for the records that describe the end state (marks, closing phase, archive). */
  at: number;
}

const phaseKey = (r: New<PhaseRecord>) => JSON.stringify([r.at, r.from, r.to, r.by, r.message]);

/** Execution time in the source beyond what the conversation counts, as one closed session. */
function execTopUp(conv: Conversation, execs: readonly New<ExecRecord>[]): New<ExecRecord>[] {
  // A session open here is this daemon's own work in progress: adding beside it would double it.
  if (execs.length === 0 || conv.exec.openSince !== undefined) return [];
  let total = 0;
  let since: number | undefined;
  for (const r of execs) {
    if (r.op === "start") since = r.at;
    else if (r.op === "stop" && since !== undefined) (total += r.at - since), (since = undefined);
  }
  const more = total - conv.exec.totalMs;
  if (more <= 0) return [];
  const end = execs[execs.length - 1]!.at;
  return [{ t: "exec", op: "start", at: end - more }, { t: "exec", op: "stop", at: end }];
}

class Batch {
  readonly out: NewRecord[] = [];
  readonly events = new Map<string, number>();
  readonly phases: Set<string>;
  readonly readFiles: Set<string>;
  readonly turns = new Set<string>();
  readonly ended = new Set<string>();
  readonly completions = new Set<string>();
  phase: Phase;
  archived: boolean;
  status: Conversation["status"];

  constructor(private readonly conv: Conversation) {
    this.phases = new Set(conv.phase.transitions.map(phaseKey));
    this.readFiles = new Set(conv.phase.readFiles);
    this.phase = conv.phase.phase;
    this.archived = conv.archived;
    this.status = conv.status;
  }

  /** Whether `r` is new; bookkeeping for the ones that are. */
  isNew(r: NewRecord): boolean {
    const { conv } = this;
    switch (r.t) {
      case "event":
        if (conv.eventsById.has(r.ev.id) || this.events.has(r.ev.id)) return false;
        this.events.set(r.ev.id, conv.lastN + this.out.length + 1);
        return true;
      case "phase": {
        const key = phaseKey(r);
        if (this.phases.has(key)) return false;
        this.phases.add(key);
        this.phase = r.to;
        return true;
      }
      case "read_file":
        if (this.readFiles.has(r.path)) return false;
        this.readFiles.add(r.path);
        return true;
      case "turn_start":
        if (conv.turns.byId.has(r.turnId) || this.turns.has(r.turnId)) return false;
        this.turns.add(r.turnId);
        return true;
      case "completion": {
        const key = `${r.turnId} ${r.eventId}`;
        const known = conv.turns.byId.get(r.turnId)?.completions.has(r.eventId) ?? false;
        if (known || this.completions.has(key)) return false;
        this.completions.add(key);
        return true;
      }
      case "turn_end": {
        const turn = conv.turns.byId.get(r.turnId);
        if ((turn && turn.status !== "open") || this.ended.has(r.turnId)) return false;
        this.ended.add(r.turnId);
        return true;
      }
      case "archive":
        if (r.archived === this.archived) return false;
        this.archived = r.archived;
        return true;
      case "status":
        if (r.status === this.status) return false;
        this.status = r.status;
        return true;
      default:
        // Nothing else has an identity a source could share with this log: always new.
        return true;
    }
  }

  push(r: NewRecord): void {
    this.out.push(r);
  }

  /** Log position of an event, here or about to be appended. */
  positionOf(eventId: string): number | undefined {
    return this.conv.eventsById.get(eventId)?.n ?? this.events.get(eventId);
  }
}

function markRecords(conv: Conversation, batch: Batch, marks: readonly ProcessedMark[], at: number): NewRecord[] {
  const out: NewRecord[] = [];
  for (const m of marks) {
    const seq = m.eventId === undefined ? 0 : batch.positionOf(m.eventId);
    if (seq === undefined) continue;
    const view = conv.views.get(m.agent);
    const cursor = view?.cursor ?? 0;
    const newSession = m.session !== undefined && m.session !== view?.session;
    if (seq > cursor || newSession) {
      out.push({
        t: "cursor", at, agent: m.agent, seq: Math.max(seq, cursor), ...(m.session !== undefined ? { session: m.session } : {}),
      } satisfies New<CursorRecord>);
    }
    if (seq > (view?.readSeq ?? 0)) out.push({ t: "read", at, agent: m.agent, seq } satisfies New<ReadRecord>);
  }
  return out;
}

/** The records of `source` that `conv` does not hold yet, in order, ready to be stamped and appended. */
export function mergeRecords(conv: Conversation, source: MergeSource): NewRecord[] {
  const batch = new Batch(conv);
  // A conversation that never counted time takes the source's sessions where they happened.
  const freshExec = conv.exec.totalMs === 0 && conv.exec.openSince === undefined;
  const execs: New<ExecRecord>[] = [];
  for (const r of source.records) {
    if (r.t === "exec" && !freshExec) execs.push(r);
    else if (batch.isNew(r)) batch.push(r);
  }
  for (const r of execTopUp(conv, execs)) batch.push(r);
  const final = source.finalPhase;
  if (final && final.phase !== batch.phase) {
    batch.push({ t: "phase", at: source.at, from: batch.phase, to: final.phase, by: "", message: "", reason: final.reason });
  }
  // Marks after the events they point at, which may be among the new records.
  for (const r of markRecords(conv, batch, source.marks, source.at)) batch.push(r);
  if (source.archived && batch.isNew({ t: "archive", at: source.at, archived: true })) {
    batch.push({ t: "archive", at: source.at, archived: true });
  }
  return batch.out;
}
