import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileConversationLog, InvalidRecordError, LogClosedError } from "../../adapters/fs-log/index.js";
import { nodeFileOps, type FileOps } from "../../adapters/fs-log/file-ops.js";
import { NotFoundError } from "../../src/errors.js";
import type { LogRecord } from "../../src/records.js";
import { filler, newKey, testProject } from "../helpers/events.js";
import { convId, countingOps, rec, recs, tempDir } from "./fixtures/fs-log-fixtures.js";

describe("FileConversationLog: append and read", () => {
  it("round-trips signed events and state records, one JSON object per line", async () => {
    const dir = tempDir();
    const p = testProject();
    const user = newKey();
    const root = p.root(user, "Build me a parser", [p.agents.planner!.pubkey]);
    const reply = p.reply(p.agents.planner!, root, filler(1), [p.orchestrator.pubkey], [["phase", "plan"]]);
    const records: LogRecord[] = [
      { n: 1, at: 10, t: "event", ev: root, origin: "relay" },
      { n: 2, at: 11, t: "phase", from: "chat", to: "plan", by: user.pubkey, message: "plan it\nnow ✓", reason: "asked" },
      { n: 3, at: 12, t: "event", ev: reply, origin: "local" },
    ];
    // What comes back is what JSON carries (nostr-tools also marks events with a symbol).
    const plain = JSON.parse(JSON.stringify(records)) as LogRecord[];
    const log = new FileConversationLog(dir);
    await log.append(root.id, records.slice(0, 2));
    await log.append(root.id, records.slice(2));
    expect(await log.read(root.id)).toStrictEqual(plain);
    await log.close();

    const lines = readFileSync(join(dir, "conversations", `${root.id}.jsonl`), "utf8").split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(lines.slice(0, 3).map((l) => JSON.parse(l))).toStrictEqual(plain);

    const reopened = new FileConversationLog(dir);
    expect(await reopened.read(root.id)).toStrictEqual(plain);
    expect(await reopened.lastPosition(root.id)).toBe(3);
    await reopened.close();
  });

  it("reads only the records after afterN, and nothing for an unknown conversation", async () => {
    const log = new FileConversationLog(tempDir());
    const id = convId("after");
    await log.append(id, recs(1, 300));
    expect((await log.read(id, 295)).map((r) => r.n)).toEqual([296, 297, 298, 299, 300]);
    expect(await log.read(id, 300)).toEqual([]);
    expect((await log.read(id, 0)).length).toBe(300);
    expect(await log.read(convId("nobody"))).toEqual([]);
    expect(await log.lastPosition(convId("nobody"))).toBe(0);
    await log.close();
  });

  it("finds lastPosition of a 5,000-record file by reading only its tail", async () => {
    const dir = tempDir();
    const id = convId("big");
    const writer = new FileConversationLog(dir);
    for (let i = 0; i < 5; i++) await writer.append(id, recs(i * 1000 + 1, i * 1000 + 1000, 900));
    await writer.close();
    const size = statSync(join(dir, "conversations", `${id}.jsonl`)).size;
    expect(size).toBeGreaterThan(4_500_000);

    const counting = countingOps();
    const log = new FileConversationLog(dir, { fileOps: counting.ops });
    expect(await log.lastPosition(id)).toBe(5000);
    expect(counting.bytesRead).toBeLessThanOrEqual(64 * 1024);
    const tail = await log.read(id, 4990);
    expect(tail.map((r) => r.n)).toEqual(Array.from({ length: 10 }, (_, i) => 4991 + i));
    expect(tail[9]).toEqual(rec(5000, 900));
    await log.close();
  });

  it("handles records larger than the 64 KB window it reads tails with", async () => {
    const dir = tempDir();
    const id = convId("huge");
    const log = new FileConversationLog(dir);
    const big = [rec(1, 150_000), rec(2, 70_000), rec(3, 200_000)];
    await log.append(id, big);
    await log.close();
    writeFileSync(join(dir, "conversations", `${id}.jsonl`), `${JSON.stringify(rec(4, 90_000)).slice(0, 80_000)}`, { flag: "a" });
    const reopened = new FileConversationLog(dir);
    expect(await reopened.lastPosition(id)).toBe(3);
    expect(await reopened.read(id, 1)).toEqual(big.slice(1));
    expect(await reopened.read(id)).toEqual(big);
    expect(reopened.problems().map((p) => p.kind)).toEqual(["torn_tail"]);
    await reopened.close();
  });

  it("keeps every pipelined append durable and in order per conversation, with far fewer fsyncs than appends", async () => {
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const ids = Array.from({ length: 50 }, (_, i) => convId(`many ${i}`));
    const done: Promise<number>[] = [];
    for (let n = 1; n <= 40; n++) for (const id of ids) done.push(log.append(id, [rec(n)]));
    await Promise.all(done);
    const stats = log.stats();
    expect(stats.appends).toBe(2000);
    expect(stats.records).toBe(2000);
    expect(stats.syncs).toBeLessThan(stats.appends / 10);
    await log.close();

    const reopened = new FileConversationLog(dir);
    for (const id of ids) expect((await reopened.read(id)).map((r) => r.n)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    await reopened.close();
  });

  it("batches appends that arrive while a flush runs into the next flush", async () => {
    const log = new FileConversationLog(tempDir());
    const id = convId("waves");
    const done: Promise<number>[] = [];
    for (let wave = 0; wave < 20; wave++) {
      for (let i = 1; i <= 100; i++) done.push(log.append(id, [rec(wave * 100 + i)]));
      await new Promise((r) => setImmediate(r)); // let a flush start between waves
    }
    await Promise.all(done);
    const { appends, flushes, syncs } = log.stats();
    expect(appends).toBe(2000);
    expect(flushes).toBeLessThanOrEqual(20);
    expect(syncs).toBeLessThanOrEqual(flushes + 1); // one fdatasync per flush, one directory fsync
    expect((await log.read(id)).map((r) => r.n)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    await log.close();
  });

  it("keeps at most maxOpenFiles descriptors open across many conversations", async () => {
    const counting = countingOps();
    const log = new FileConversationLog(tempDir(), { fileOps: counting.ops, maxOpenFiles: 8 });
    const ids = Array.from({ length: 60 }, (_, i) => convId(`lru ${i}`));
    for (let round = 1; round <= 3; round++) await Promise.all(ids.map((id) => log.append(id, [rec(round)])));
    expect(counting.maxOpen).toBeLessThanOrEqual(8);
    for (const id of ids) expect(await log.lastPosition(id)).toBe(3);
    expect(counting.maxOpen).toBeLessThanOrEqual(8);
    await log.close();
    expect(counting.open).toBe(0);
  });

  it("refuses records whose n does not follow the log, and accepts the ones after", async () => {
    const log = new FileConversationLog(tempDir());
    const id = convId("order");
    await log.append(id, recs(1, 3));
    await expect(log.append(id, [rec(3)])).rejects.toBeInstanceOf(InvalidRecordError);
    await expect(log.append(id, [rec(5), rec(4)])).rejects.toBeInstanceOf(InvalidRecordError);
    await expect(log.append(id, [{ at: 1, t: "read_file", path: "x" } as unknown as LogRecord])).rejects.toBeInstanceOf(InvalidRecordError);
    await expect(log.append(id, [{ ...rec(4), at: 1n } as unknown as LogRecord])).rejects.toBeInstanceOf(InvalidRecordError);
    await log.append(id, [rec(4)]);
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    await log.close();
  });
});

describe("FileConversationLog: opening files ahead of a flush", () => {
  /** A log whose opens are recorded, and how many were asked for when the flush's turn came. */
  function openingLog(dir: string) {
    const opened: string[] = [];
    const ops: FileOps = { ...nodeFileOps, open: (path, create) => (opened.push(path), nodeFileOps.open(path, create)) };
    const log = new FileConversationLog(dir, { fileOps: ops });
    const atFlushTurn = new Promise<number>((resolve) => {
      // Scheduled before the appends: runs just before the flush they schedule begins.
      setImmediate(() => resolve(opened.length));
    });
    return { log, opened, atFlushTurn };
  }

  it("starts a new conversation's file while its first records wait for the flush", async () => {
    const { log, atFlushTurn } = openingLog(tempDir());
    const ids = [1, 2, 3].map(convId);
    const appended = ids.map((id) => log.append(id, [rec(1)]));
    expect(await atFlushTurn).toBeGreaterThanOrEqual(ids.length);
    await Promise.all(appended);
    for (const id of ids) expect((await log.read(id)).map((r) => r.n)).toEqual([1]);
    await log.close();
  });

  it("opens a log that has records in the flush's turn (its tail is checked then, after what ran before)", async () => {
    const dir = tempDir();
    const id = convId("existing");
    const first = new FileConversationLog(dir);
    await first.append(id, recs(1, 3));
    await first.close();
    const { log, atFlushTurn } = openingLog(dir);
    const appended = log.append(id, [rec(4)]);
    expect(await atFlushTurn).toBe(0);
    await appended;
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    await log.close();
  });
});

describe("FileConversationLog: list, archive, close", () => {
  it("lists active and archived logs, moves them both ways and keeps appending where the file is", async () => {
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const [a, b] = [convId("a"), convId("b")];
    await log.append(a, recs(1, 2));
    await log.append(b, recs(1, 2));
    await log.setArchived(a, true);
    expect(existsSync(join(dir, "conversations", "archive", `${a}.jsonl`))).toBe(true);
    expect(existsSync(join(dir, "conversations", `${a}.jsonl`))).toBe(false);
    const listed = await log.list();
    expect(listed.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [{ id: a, archived: true }, { id: b, archived: false }].sort((x, y) => x.id.localeCompare(y.id)),
    );
    await log.append(a, [rec(3)]);
    expect((await log.read(a)).map((r) => r.n)).toEqual([1, 2, 3]);
    await log.setArchived(a, true); // already there: nothing to do
    await log.setArchived(a, false);
    expect((await log.list()).find((c) => c.id === a)).toEqual({ id: a, archived: false });
    expect(await log.lastPosition(a)).toBe(3);
    await expect(log.setArchived(convId("ghost"), true)).rejects.toBeInstanceOf(NotFoundError);
    await log.close();
  });

  it("ignores and reports stray files in the log directories", async () => {
    const dir = tempDir();
    const problems: string[] = [];
    const log = new FileConversationLog(dir, { onProblem: (p) => problems.push(`${p.kind}:${p.id}`) });
    await log.append(convId("real"), [rec(1)]);
    writeFileSync(join(dir, "conversations", "notes.txt"), "hello");
    writeFileSync(join(dir, "conversations", `${convId("x").toUpperCase()}.jsonl`), "");
    expect(await log.list()).toEqual([{ id: convId("real"), archived: false }]);
    expect(problems.sort()).toEqual([`stray_file:${convId("x").toUpperCase()}.jsonl`, "stray_file:notes.txt"].sort());
    await log.list();
    expect(problems).toHaveLength(2); // reported once, not on every scan
    await log.close();
  });

  it("an append resolves with the file's size after its lines, also when appends share a flush", async () => {
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const [a, b] = [convId("size a"), convId("size b")];
    const ends = await Promise.all([log.append(a, recs(1, 3)), log.append(b, [rec(1, 500)]), log.append(a, [rec(4, 70_000)]), log.append(a, recs(5, 6))]);
    expect(log.stats().flushes).toBe(1);
    const path = (id: string) => join(dir, "conversations", `${id}.jsonl`);
    const lineEnds = (id: string) => {
      let at = 0;
      return readFileSync(path(id), "utf8").split("\n").slice(0, -1).map((l) => (at += Buffer.byteLength(l) + 1));
    };
    expect(ends).toEqual([lineEnds(a)[2], lineEnds(b)[0], lineEnds(a)[3], lineEnds(a)[5]]);
    expect(ends[3]).toBe(statSync(path(a)).size);
    expect(await log.end(a)).toEqual({ n: 6, bytes: statSync(path(a)).size });
    expect(await log.append(a, [])).toBe(statSync(path(a)).size);
    expect(await log.end(convId("nobody"))).toEqual({ n: 0, bytes: 0 });
    await log.close();
  });

  it("lists every log with its size from the directory, without opening any, and reports strays", async () => {
    const dir = tempDir();
    const writer = new FileConversationLog(dir);
    const [a, b] = [convId("sizes a"), convId("sizes b")];
    await writer.append(a, recs(1, 2));
    await writer.append(b, recs(1, 5));
    await writer.setArchived(b, true);
    await writer.close();
    writeFileSync(join(dir, "conversations", `${a}.jsonl`), '{"n":3,"t":"re', { flag: "a" }); // a torn tail counts
    writeFileSync(join(dir, "conversations", "notes.txt"), "hello");
    const counting = countingOps();
    const problems: string[] = [];
    const log = new FileConversationLog(dir, { fileOps: counting.ops, onProblem: (p) => problems.push(`${p.kind}:${p.id}`) });
    const sizes = await log.sizes();
    expect(sizes.sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: a, archived: false, bytes: statSync(join(dir, "conversations", `${a}.jsonl`)).size },
      { id: b, archived: true, bytes: statSync(join(dir, "conversations", "archive", `${b}.jsonl`)).size },
    ].sort((x, y) => x.id.localeCompare(y.id)));
    expect(counting.calls.open ?? 0).toBe(0);
    expect(problems).toEqual(["stray_file:notes.txt"]);
    await log.close();
  });

  it("flushes queued appends on close, is idempotent, and refuses work afterwards", async () => {
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const id = convId("close");
    const pending = [log.append(id, recs(1, 10)), log.append(id, recs(11, 20))];
    await Promise.all([log.close(), log.close()]);
    await Promise.all(pending);
    await log.close();
    await expect(log.append(id, [rec(21)])).rejects.toBeInstanceOf(LogClosedError);
    await expect(log.read(id)).rejects.toBeInstanceOf(LogClosedError);
    const reopened = new FileConversationLog(dir);
    expect(await reopened.lastPosition(id)).toBe(20);
    await reopened.close();
  });
});
