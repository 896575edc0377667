// Migrating a TENEX project as its orchestrator really left it (test/helpers/tenex-model.ts):
// completions recorded twice, answer and completion in one second, END routings, no cursor for
// the orchestrator, a conversation that grows after the first import, a project that does not
// match. Real signed events, a real file log, a real SQLite index.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvent } from "nostr-tools/pure";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { checkProject, SourceSurvey } from "../../adapters/tenex-import/check-project.js";
import { importTenexFolder, readTenexFolder, type ImportOptions } from "../../adapters/tenex-import/import-folder.js";
import { indexItem } from "../../src/index-item.js";
import { projectRecipients } from "../../src/messaging/recipients.js";
import { replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { totalExecutionMs } from "../../src/execution-time.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";
import { serialize, writeMultiFixture, type MultiFixture } from "../helpers/tenex-fixture.js";

let root: string;
let fx: MultiFixture;
let log: FileConversationLog;
let index: SqliteIndex;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tenex-migrate-"));
  fx = writeMultiFixture(root);
  log = new FileConversationLog(join(root, "data"));
  index = new SqliteIndex({ path: join(root, "index.sqlite") });
});

afterEach(async () => {
  await log.close();
  index.close();
  rmSync(root, { recursive: true, force: true });
});

const options = (extra: Partial<ImportOptions> = {}): ImportOptions => ({
  log, verify: (ev: NostrEvent) => verifyEvent(ev), agentsBySlug: fx.agentsBySlug, orchestrator: fx.project.orchestrator.pubkey,
  onAppended: (conv, records) => index.applyBatch([indexItem(conv, records, projectRecipients(fx.project.info))]), ...extra,
});

async function loaded(): Promise<{ conv: Conversation; records: LogRecord[] }> {
  const records = await log.read(fx.multi.id);
  return { conv: replay(fx.multi.id, records), records };
}

const [root0, pA, cB, pC, answer, cD, pE, thanks, welcome, bye] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const ev = (i: number) => fx.multi.events[i]!;
const nOf = (records: LogRecord[], id: string) => records.find((r) => r.t === "event" && r.ev.id === id)?.n;

describe("completions", () => {
  it("link to the event they came from; TENEX's second record of one completion is merged, not linked further on", async () => {
    const report = await importTenexFolder(fx.dir, options());
    const { conv } = await loaded();
    const t = fx.multi.turnIds;
    const keys = (turnId: string) => [...conv.turns.byId.get(turnId)!.completions.keys()];
    // A: planner's (noted as its summary, then copied from pA) and coder's (cB woke the orchestrator while A was open).
    expect(keys(t.A!)).toEqual([ev(pA).id, ev(cB).id]);
    expect(keys(t.B!)).toEqual([ev(cB).id]);
    expect(keys(t.C!)).toEqual([ev(pC).id, ev(cD).id]);
    expect(keys(t.D!)).toEqual([ev(cD).id]);
    expect(keys(t.E!)).toEqual([ev(pE).id]);
    expect(conv.turns.byId.get(t.A!)!.completions.get(ev(pA).id)!.message).toBe("Plan summary: three steps, export first");
    expect(report.completions).toEqual({ linked: 7, merged: 2, unlinked: 0 });
  });

  it("of an answer and a completion in one second: the log keeps arrival order and puts each completion after its event", async () => {
    await importTenexFolder(fx.dir, options());
    const { records } = await loaded();
    // Arrival order, though the completion's id sorts first.
    expect(ev(cD).id < ev(answer).id).toBe(true);
    expect(records.filter((r) => r.t === "event").map((r) => r.t === "event" && r.ev.id)).toEqual(fx.multi.events.map((e) => e.id));
    const ats = records.map((r) => r.at);
    expect(records.filter((r) => r.t === "event").map((r) => r.at)).toEqual([...ats.filter((_, i) => records[i]!.t === "event")].sort((a, b) => a - b));
    for (const c of records.filter((r) => r.t === "completion")) {
      if (c.t !== "completion") continue;
      expect(c.n, `completion of ${c.eventId.slice(0, 8)}`).toBeGreaterThan(nOf(records, c.eventId)!);
    }
  });

  it("END routings open no turn, end the unfinished turn before them, and are reported once, not one warning each", async () => {
    const report = await importTenexFolder(fx.dir, options());
    const { conv } = await loaded();
    const t = fx.multi.turnIds;
    expect(conv.turns.turns.map((x) => [x.turnId, x.status])).toEqual([
      [t.A, "completed"], [t.B, "completed"], [t.C, "completed"], [t.D, "completed"], [t.E, "completed"], [t.G, "cancelled"],
    ]);
    expect(conv.turns.byId.get(t.G!)!.endReason).toBe("ended by END in TENEX: User said goodbye");
    expect(report.endTurns).toBe(2);
    expect(report.warnings).toEqual([]);
  });
});

describe("what TENEX's agents had processed", () => {
  it("is read in tenexd too: the orchestrator, which TENEX gave no state, has no unread mail left; sessions stay", async () => {
    await importTenexFolder(fx.dir, options());
    const { conv, records } = await loaded();
    const { orchestrator, agents: { planner, coder } } = fx.project;
    const view = (pk: string) => conv.views.get(pk)!;
    // Woken by every completion and by the user's goodbye, before its last routing.
    expect(view(orchestrator.pubkey)).toMatchObject({ cursor: nOf(records, ev(bye).id), readSeq: nOf(records, ev(bye).id) });
    // TENEX's cursor was at "Thanks"; planner's own answer after it shows it had seen that far.
    expect(view(planner!.pubkey)).toMatchObject({ readSeq: nOf(records, ev(welcome).id), session: "sess-planner-2" });
    expect(view(coder!.pubkey).readSeq).toBe(nOf(records, ev(cD).id));
    for (const a of fx.project.info.agents) expect(index.unreadCount(a.pubkey, Date.now()), a.slug).toBe(0);
  });
});

describe("a conversation that grew in TENEX after the first import", () => {
  it("is topped up with exactly what is new, idempotently, and the report says what was added", async () => {
    fx.first();
    const first = await importTenexFolder(fx.dir, options());
    expect(first.imported.map((c) => [c.id, c.events])).toEqual([[fx.multi.id, 7]]);
    fx.grow();

    const second = await importTenexFolder(fx.dir, options());
    expect(second.imported).toEqual([]);
    expect(second.toppedUp).toEqual([{
      id: fx.multi.id, title: "Ship the export feature",
      added: { event: 3, phase: 1, turn_start: 1, turn_end: 1, exec: 2, cursor: 2, read: 2 },
    }]);
    const { conv } = await loaded();
    expect(conv.events.map((e) => e.ev.id).sort()).toEqual(fx.multi.events.map((e) => e.id).sort());
    expect(conv.phase.phase).toBe("chat");
    expect(conv.turns.byId.get(fx.multi.turnIds.G!)?.status).toBe("cancelled");
    expect(totalExecutionMs(conv.exec, Date.now())).toBe(20_000);
    for (const a of fx.project.info.agents) expect(index.unreadCount(a.pubkey, Date.now()), a.slug).toBe(0);

    const before = await log.lastPosition(fx.multi.id);
    const third = await importTenexFolder(fx.dir, options());
    expect([third.imported, third.toppedUp, third.unchanged]).toEqual([[], [], [fx.multi.id]]);
    expect(await log.lastPosition(fx.multi.id)).toBe(before);
  });

  it("and a file repaired after an import that refused one of its events brings that event in", async () => {
    const file = { ...fx.multi.file, history: [...fx.multi.file.history] };
    const damaged = { ...ev(cB), sig: ev(cB).sig.replace(/.$/, (c) => (c === "0" ? "1" : "0")) };
    file.history[cB] = serialize(damaged);
    writeFileSync(join(fx.dir, `${fx.multi.id}.json`), JSON.stringify(file));
    const first = await importTenexFolder(fx.dir, options());
    expect(first.badEvents.map((b) => b.eventId)).toEqual([ev(cB).id]);
    expect((await loaded()).conv.eventsById.has(ev(cB).id)).toBe(false);

    fx.grow();
    const again = await importTenexFolder(fx.dir, options());
    expect(again.toppedUp.map((c) => [c.id, c.added.event])).toEqual([[fx.multi.id, 1]]);
    const { conv } = await loaded();
    expect(conv.eventsById.has(ev(cB).id)).toBe(true);
    expect(conv.turns.byId.get(fx.multi.turnIds.B!)!.completions.has(ev(cB).id)).toBe(true);
  });
});

describe("a TENEX project that does not match this one", () => {
  async function survey(): Promise<SourceSurvey> {
    const s = new SourceSurvey();
    for await (const c of readTenexFolder(fx.dir)) s.add(c.conversation, c.events);
    return s;
  }

  it("is found out before anything is imported, each difference with the change that fixes it", async () => {
    const other = testProject({ agents: ["coder", "reviewer"] });
    const facts = { coordinate: other.coordinate, agents: other.info.agents };
    const problems = checkProject(await survey(), facts);
    const text = problems.map((p) => `${p.message} | ${p.fix}`);
    expect(text[0]).toMatch(new RegExp(`^TENEX's events belong to project ${fx.project.coordinate} \\(10 events\\); this project is ${other.coordinate}`));
    expect(text[0]).toMatch(/config\.json: "project": \{ "owner": \{ "pubkey": "npub1/);
    expect(text.some((t) => /^agents\.json has no agent "planner" .*\| agents\.json: add \{ "slug": "planner", … \} with the key of npub1/.test(t))).toBe(true);
    expect(text.some((t) => /^agent "coder" signed its TENEX completions as npub1\S+; agents\.json gives it npub1/.test(t))).toBe(true);
    expect(text.some((t) => /^phases were changed by "Orchestrator" \(npub1/.test(t))).toBe(true);
    expect(problems).toHaveLength(4);
  });

  it("matches the project whose keys signed it", async () => {
    expect(checkProject(await survey(), { coordinate: fx.project.coordinate, agents: fx.project.info.agents })).toEqual([]);
  });
});
