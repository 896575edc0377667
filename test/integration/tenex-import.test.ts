// `tenexd import`: a TENEX conversations folder written from real signed events is imported
// into a real file log; replaying the log must give back what TENEX had.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvent } from "nostr-tools/pure";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { importTenexFolder, type ImportOptions } from "../../adapters/tenex-import/import-folder.js";
import { TenexEventFormatError, decodeHistoryEntry } from "../../adapters/tenex-import/ndk-event.js";
import { TenexSourceError } from "../../adapters/tenex-import/source-files.js";
import type { Conversation } from "../../src/conversation-state.js";
import { replay } from "../../src/conversation-reducer.js";
import { totalExecutionMs } from "../../src/execution-time.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign } from "../helpers/events.js";
import { serialize, writeTenexFixture, type TenexFixture } from "../helpers/tenex-fixture.js";

const verify = (ev: NostrEvent) => verifyEvent(ev);

let root: string;
let fx: TenexFixture;
let log: FileConversationLog;
let dataDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tenex-import-"));
  fx = writeTenexFixture(root);
  dataDir = join(root, "data");
  log = new FileConversationLog(dataDir);
});

afterEach(async () => {
  await log.close();
  rmSync(root, { recursive: true, force: true });
});

const options = (extra: Partial<ImportOptions> = {}): ImportOptions => ({
  log, verify, agentsBySlug: fx.agentsBySlug, orchestrator: fx.project.orchestrator.pubkey, ...extra,
});

async function loaded(id: string): Promise<{ conv: Conversation; records: LogRecord[] }> {
  const records = await log.read(id);
  return { conv: replay(id, records), records };
}

/** Without the "verified" mark nostr-tools leaves on the events it signed. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const nOf = (records: LogRecord[], eventId: string) =>
  records.find((r) => r.t === "event" && r.ev.id === eventId)?.n;

describe("importTenexFolder", () => {
  it("imports every conversation with its events, phases, turns, cursors, execution time and archive flag", async () => {
    const progress: string[] = [];
    const report = await importTenexFolder(fx.dir, options({ onProgress: (p) => progress.push(`${p.done}/${p.total} ${p.outcome}`) }));

    expect(report.imported.map((c) => [c.id, c.title, c.events, c.archived]).sort()).toEqual([
      [fx.main.id, "Build a login page", 8, false],
      [fx.live.id, "Brainstorm names", 2, false],
      [fx.old.id, "An old question", 3, true],
    ].sort());
    expect(progress).toHaveLength(5);
    expect(progress.at(-1)).toMatch(/^5\/5 /);

    // main: events in history order, the forged one left out.
    const { conv, records } = await loaded(fx.main.id);
    const kept = fx.main.events.filter((e) => e.id !== fx.badEvent.id);
    expect(records.filter((r) => r.t === "event").map((r) => r.t === "event" && r.ev.id)).toEqual(kept.map((e) => e.id));
    expect(records.map((r) => r.n)).toEqual(records.map((_, i) => i + 1));
    expect(conv.events.map((e) => e.ev)).toEqual(plain(kept));
    expect(records.find((r) => r.t === "event")).toMatchObject({ origin: "relay", at: fx.main.events[0]!.created_at * 1000 });
    expect(conv.title).toBe("Build a login page");

    // Phases: TENEX's transitions, byte for byte, interleaved by time.
    expect(conv.phase.phase).toBe("execute");
    expect(conv.phase.transitions.map((t) => [t.from, t.to, t.by, t.message, t.reason, t.at])).toEqual(
      fx.main.file.phaseTransitions.map((t) => [t.from, t.to, t.agentPubkey, t.message, t.reason ?? "", t.timestamp]),
    );
    const firstPhase = records.find((r) => r.t === "phase")!;
    expect(firstPhase.n).toBe(nOf(records, fx.main.events[1]!.id)! + 1);
    expect(conv.phase.readFiles).toEqual(["src/login.ts", "README.md"]);

    // Turns: completions keyed by their tool=complete events, or by a synthetic key.
    const { planner, coder } = fx.project.agents;
    const ev = fx.main.events;
    expect(conv.turns.turns.map((t) => [t.turnId, t.phase, t.status])).toEqual([
      ["turn-1", "plan", "completed"], ["turn-2", "execute", "cancelled"],
      ["turn-3", "verification", "completed"], ["turn-4", "execute", "open"],
    ]);
    const [t1, t2, t3, t4] = conv.turns.turns;
    expect(t2!.agents).toEqual([coder!.pubkey]);
    expect(t2!.endReason).toBe("superseded by turn-3");
    expect([...t1!.completions.keys()]).toEqual([ev[3]!.id]);
    expect([...t2!.completions.keys()]).toEqual([ev[5]!.id]);
    expect([...t3!.completions.values()].map((c) => [c.eventId, c.agent, c.message])).toEqual([
      [ev[7]!.id, coder!.pubkey, "Tests pass"],
      ["import:turn-3:planner", planner!.pubkey, "Reviewed, looks fine"],
    ]);
    expect(t2!.completions.get(ev[5]!.id)!.at).toBe(ev[5]!.created_at * 1000);
    expect(t4!.agents).toEqual([coder!.pubkey]);

    // Cursors and read marks: lastProcessedMessageIndex counts entries seen (a rejected entry falls
    // back to the one before), or an agent's own later event shows it had seen further.
    expect(conv.views.get(fx.project.orchestrator.pubkey)).toMatchObject({ cursor: nOf(records, ev[8]!.id), readSeq: nOf(records, ev[8]!.id) });
    expect(conv.views.get(planner!.pubkey)).toMatchObject({ cursor: nOf(records, ev[3]!.id), session: "sess-planner" });
    expect(conv.views.get(coder!.pubkey)).toMatchObject({ cursor: nOf(records, ev[7]!.id), readSeq: nOf(records, ev[7]!.id), session: "sess-coder" });

    expect(totalExecutionMs(conv.exec, Date.now())).toBe(90_000);
    expect(conv.exec.openSince).toBeUndefined();
    expect(conv.archived).toBe(false);
  });

  it("closes a session TENEX left open at its last update, reads uppercase phases and refuses an unsigned event", async () => {
    const report = await importTenexFolder(fx.dir, options());
    const { conv, records } = await loaded(fx.live.id);
    expect(conv.events.map((e) => e.ev.id)).toEqual([fx.live.events[0]!.id, fx.live.events[1]!.id]);
    expect(conv.phase.phase).toBe("brainstorm");
    expect(conv.phase.transitions.map((t) => [t.from, t.to])).toEqual([["chat", "brainstorm"]]);
    expect(conv.turns.turns).toEqual([]);
    // 30 s closed before, plus the open session up to lastUpdated (12 s).
    expect(conv.exec.openSince).toBeUndefined();
    expect(totalExecutionMs(conv.exec, Date.now())).toBe(42_000);
    expect(conv.views.get(fx.project.agents.planner!.pubkey)?.cursor).toBe(nOf(records, fx.live.events[1]!.id));
    expect(report.badEvents).toContainEqual({ conversationId: fx.live.id, entry: 3, eventId: fx.unsignedEvent.id, reason: "missing signature" });
  });

  it("keeps an archived conversation archived, and ends it in the phase TENEX had", async () => {
    await importTenexFolder(fx.dir, options());
    const { conv } = await loaded(fx.old.id);
    expect(conv.archived).toBe(true);
    expect((await log.list()).find((c) => c.id === fx.old.id)).toEqual({ id: fx.old.id, archived: true });
    expect(conv.phase.phase).toBe("plan");
    expect(conv.phase.transitions).toHaveLength(1);
    expect(totalExecutionMs(conv.exec, Date.now())).toBe(5_000);
    expect(conv.events.map((e) => e.ev)).toEqual(plain(fx.old.events));
  });

  it("reports the forged and altered events, the broken files and the unknown agent with their reasons", async () => {
    const report = await importTenexFolder(fx.dir, options());
    expect(report.badEvents).toContainEqual({ conversationId: fx.main.id, entry: 7, eventId: fx.badEvent.id, reason: "invalid signature" });
    expect(report.badEvents).toContainEqual({ conversationId: fx.live.id, entry: 4, eventId: fx.alteredEvent.id, reason: "id does not match the event's hash" });
    expect(report.badEvents).toHaveLength(3);
    const skipped = new Map(report.skipped.map((s) => [s.id, s]));
    expect(skipped.get(fx.unparseableId)?.reason).toMatch(/^does not parse: .*JSON/);
    expect(skipped.get("notes")).toMatchObject({ file: fx.badNameFile, reason: expect.stringMatching(/not a conversation id/) });
    expect(report.skipped).toHaveLength(2);
    // One warning per conversation for an unknown agent, however often it is named.
    const ghost = report.warnings.filter((w) => w.source === fx.main.id && w.message.includes('"ghost"'));
    expect(ghost.map((w) => w.message)).toEqual(['unknown agent "ghost" left out of 1 turn, 1 completion, 1 agent state']);
  });

  it("adds nothing the second time: every conversation is unchanged, and only the refused events are checked again", async () => {
    await importTenexFolder(fx.dir, options());
    const before = await Promise.all([fx.main.id, fx.live.id, fx.old.id].map((id) => log.lastPosition(id)));
    let verified = 0;
    const again = await importTenexFolder(fx.dir, options({ verify: (e) => (verified++, verify(e)) }));
    expect(again.imported).toEqual([]);
    expect(again.toppedUp).toEqual([]);
    expect(again.unchanged.sort()).toEqual([fx.main.id, fx.live.id, fx.old.id].sort());
    // The forged and the altered event (the unsigned one does not decode): still refused, still reported.
    expect(verified).toBe(2);
    expect(again.badEvents).toHaveLength(3);
    const after = await Promise.all([fx.main.id, fx.live.id, fx.old.id].map((id) => log.lastPosition(id)));
    expect(after).toEqual(before);
    expect(before.every((n) => n > 0)).toBe(true);
  });

  it("imports in place: the log shares TENEX's folder and the TENEX files stay as they were", async () => {
    await log.close();
    log = new FileConversationLog(join(root, ".tenex"));
    const source = readFileSync(join(fx.dir, `${fx.main.id}.json`), "utf8");
    const report = await importTenexFolder(fx.dir, options());
    expect(report.imported).toHaveLength(3);
    expect(readFileSync(join(fx.dir, `${fx.main.id}.json`), "utf8")).toBe(source);
    expect((await log.list()).map((c) => c.id).sort()).toEqual([fx.main.id, fx.live.id, fx.old.id].sort());
    expect(replay(fx.main.id, await log.read(fx.main.id)).events).toHaveLength(8);
  });

  it("fails with a clear error when the folder is not there, or holds no TENEX project", async () => {
    await expect(importTenexFolder(join(root, "nope"), options())).rejects.toThrow(TenexSourceError);
    mkdirSync(join(root, "empty", "archive"), { recursive: true });
    writeFileSync(join(root, "empty", "notes.txt"), "not TENEX");
    await expect(importTenexFolder(join(root, "empty"), options())).rejects.toThrow(/found no TENEX project there/);
  });
});

describe("decodeHistoryEntry (NDK serialized events)", () => {
  const key = newKey();
  const ev = plain(sign(key, 1111, "hi", [["e", "a".repeat(64)]], 1_700_000_000));

  it("reads NDKEvent.serialize(true, true), the array itself, a swapped sig/id pair and a plain event", () => {
    expect(decodeHistoryEntry(serialize(ev))).toEqual(ev);
    const arr = JSON.parse(serialize(ev)) as unknown[];
    expect(decodeHistoryEntry(arr)).toEqual(ev);
    expect(decodeHistoryEntry([...arr.slice(0, 6), ev.id, ev.sig])).toEqual(ev);
    expect(decodeHistoryEntry({ ...ev, extra: 1 })).toEqual(ev);
  });

  it("says what is wrong with an entry it cannot decode", () => {
    const reason = (entry: unknown) => {
      try {
        decodeHistoryEntry(entry);
      } catch (e) {
        if (e instanceof TenexEventFormatError) return e.reason;
      }
      return "decoded";
    };
    expect(reason(serialize(ev, false))).toBe("missing signature");
    expect(reason("[0, nope")).toMatch(/^not JSON/);
    expect(reason(42)).toBe("expected a serialized event, got number");
    expect(reason({ ...ev, pubkey: "XYZ" })).toMatch(/^pubkey: expected 64 lowercase hex/);
    expect(reason({ ...ev, tags: [["e", 5]] })).toMatch(/^tags\.0\.1/);
  });
});
