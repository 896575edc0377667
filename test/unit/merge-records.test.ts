// mergeRecords: a source merged into a conversation keeps only what the conversation lacks,
// by each record's identity; merging the result's source again adds nothing.

import { describe, expect, it } from "vitest";
import { stamp } from "../../src/conversation.js";
import { emptyConversation, replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { totalExecutionMs } from "../../src/execution-time.js";
import { mergeRecords, type MergeSource } from "../../src/merge-records.js";
import type { LogRecord, NewRecord } from "../../src/records.js";
import { testProject } from "../helpers/events.js";

const p = testProject();
const root = p.root(p.owner, "hello", [], [], 1_700_000_000);
const r1 = p.reply(p.agents.planner!, root, "one", [p.orchestrator.pubkey], [["tool", "complete"]], root, 1_700_000_010);
const r2 = p.reply(p.owner, root, "two", [p.agents.planner!.pubkey], [], root, 1_700_000_020);
const ev = (e: typeof root, at: number): NewRecord => ({ t: "event", at, ev: e, origin: "relay" });
const planner = p.agents.planner!.pubkey;

function source(records: NewRecord[], extra: Partial<MergeSource> = {}): MergeSource {
  return { records, marks: [], archived: false, at: 1_700_000_030_000, ...extra };
}

/** The log each conversation below was replayed from. */
const logOf = new WeakMap<Conversation, LogRecord[]>();

/** Merges into `conv` and returns the conversation with the new records applied. */
function apply(conv: Conversation, src: MergeSource): { conv: Conversation; added: LogRecord[] } {
  const added = stamp(conv, mergeRecords(conv, src));
  return { conv: replay(conv.id, [...logOf.get(conv)!, ...added]), added };
}

function fresh(src: MergeSource): Conversation {
  const empty = emptyConversation(root.id);
  const records = stamp(empty, mergeRecords(empty, src));
  const conv = replay(root.id, records);
  logOf.set(conv, records);
  return conv;
}

const turn: NewRecord[] = [
  { t: "turn_start", at: 1_700_000_005_000, turnId: "T", phase: "plan", agents: [planner], reason: "r" },
  { t: "completion", at: 1_700_000_010_000, turnId: "T", eventId: r1.id, agent: planner, message: "one" },
];

describe("mergeRecords", () => {
  it("into an empty conversation keeps everything, in order, marks after their events", () => {
    const src = source([ev(root, 1), ...turn, ev(r1, 2)], { marks: [{ agent: planner, eventId: r1.id, session: "s" }] });
    const added = stamp(emptyConversation(root.id), mergeRecords(emptyConversation(root.id), src));
    expect(added.map((r) => r.t)).toEqual(["event", "turn_start", "completion", "event", "cursor", "read"]);
    expect(added.find((r) => r.t === "read")).toMatchObject({ agent: planner, seq: 4 });
  });

  it("adds only what is new, and nothing when merged again", () => {
    const conv = fresh(source([ev(root, 1), ...turn], { marks: [{ agent: planner, eventId: root.id }] }));
    const grown = source([
      ev(root, 1), ...turn, ev(r1, 2),
      { t: "turn_end", at: 3, turnId: "T", status: "completed", reason: "all agents completed" },
      ev(r2, 4),
      { t: "phase", at: 5, from: "chat", to: "plan", by: p.orchestrator.pubkey, message: "m", reason: "x" },
    ], { marks: [{ agent: planner, eventId: r1.id }], finalPhase: { phase: "plan", reason: "closing" } });
    const { conv: after, added } = apply(conv, grown);
    expect(added.map((r) => r.t)).toEqual(["event", "turn_end", "event", "phase", "cursor", "read"]);
    logOf.set(after, [...logOf.get(conv)!, ...added]);
    expect(mergeRecords(after, grown)).toEqual([]);
    expect(after.turns.byId.get("T")!.status).toBe("completed");
  });

  it("moves marks only forward and adds execution time beyond the conversation's total, once", () => {
    const exec = (a: number, b: number): NewRecord[] => [{ t: "exec", op: "start", at: a }, { t: "exec", op: "stop", at: b }];
    const conv = fresh(source([ev(root, 1), ev(r1, 2), ...exec(0, 10_000)], { marks: [{ agent: planner, eventId: r1.id }] }));
    const later = source([ev(root, 1), ev(r1, 2), ...exec(0, 25_000)], { marks: [{ agent: planner, eventId: root.id }] });
    const { conv: after, added } = apply(conv, later);
    expect(added.map((r) => r.t)).toEqual(["exec", "exec"]);
    expect(totalExecutionMs(after.exec, 0)).toBe(25_000);
    expect(after.views.get(planner)!.readSeq).toBe(2);
  });

  it("archives what the source has archived, and never restores", () => {
    const archived = fresh(source([ev(root, 1)], { archived: true }));
    expect(archived.archived).toBe(true);
    expect(mergeRecords(archived, source([ev(root, 1)], { archived: false }))).toEqual([]);
  });
});
