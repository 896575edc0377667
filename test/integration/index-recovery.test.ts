// Reconciling the index with the logs at start after a crash (daemon/index-recovery.ts): a log
// whose size is the one the index recorded with its last records is not opened; a log that
// grew, shrank, has a torn tail or is unknown to the index is read, and afterwards the index is
// exactly what a rebuild from the same logs would be.

import { appendFileSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog, type LogProblem } from "../../adapters/fs-log/index.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { rebuildIndex, reconcileIndex } from "../../daemon/engine/recovery/index-recovery.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import type { NewRecord } from "../../src/records.js";
import { countingOps, tempDir } from "./fixtures/fs-log-fixtures.js";
import { closeTestIndexes, dumpIndex, newTestIndex, scenario, type LogFixture } from "./sqlite-index-helpers.js";

afterEach(closeTestIndexes);

/** What a record was before the store stamped it with its position. */
const draft = (r: LogFixture["records"][number]): NewRecord => {
  const { n: _n, ...rest } = r;
  return rest as NewRecord;
};

interface Project {
  dir: string;
  logs: LogFixture[];
  path(id: string): string;
  indexPath: string;
}

/**
 * The scenario's conversations written the daemon's way: committed through the store in small
 * chunks (fsync'd log, then the index fed in batches with each log's size), all but the last
 * `held` records of each; those follow through the log alone, as if the process died before
 * the index took them.
 */
async function written(held = 0): Promise<Project> {
  const dir = tempDir();
  const { logs } = scenario();
  const log = new FileConversationLog(dir);
  const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const store = new ConversationStore({ log, index });
  await store.init();
  for (const fixture of logs) {
    const conv = await store.getOrCreate(fixture.id, "");
    const upTo = fixture.records.length - held;
    for (let i = 0; i < upTo; i += 3) await store.commit(conv, fixture.records.slice(i, Math.min(i + 3, upTo)).map(draft)).durable;
  }
  await store.indexed();
  index.close();
  for (const fixture of logs) if (held > 0) await log.append(fixture.id, fixture.records.slice(-held));
  await log.close();
  return { dir, logs, path: (id) => join(dir, "conversations", `${id}.jsonl`), indexPath: join(dir, "index.sqlite") };
}

/** Reconciles the project's index with its logs, as the daemon's start does after a crash. */
async function reconcile(p: Project) {
  const problems: LogProblem[] = [];
  const counting = countingOps();
  const index = newTestIndex({ path: p.indexPath });
  const log = new FileConversationLog(p.dir, {
    fileOps: counting.ops,
    onProblem: (x) => {
      problems.push(x);
      // As the daemon does: a log set aside takes its conversation out of the index.
      if (x.kind === "quarantined") index.drop(x.id);
    },
  });
  try {
    const report = await reconcileIndex(log, index);
    return { report, problems, opened: counting.calls.open ?? 0, index };
  } finally {
    await log.close();
  }
}

/** Every table of an index rebuilt from scratch from the project's logs (in a separate file). */
async function rebuilt(p: Project): Promise<Record<string, string[]>> {
  const index = newTestIndex();
  const log = new FileConversationLog(p.dir);
  try {
    await rebuildIndex(log, index);
    return dumpIndex(index.path);
  } finally {
    await log.close();
  }
}

const sizeOf = (path: string) => statSync(path).size;
const lines = (path: string) => readFileSync(path, "utf8").split("\n").slice(0, -1);

describe("reconcileIndex", () => {
  it("after the daemon's own writes every log's size is recorded: the check opens no log", async () => {
    const p = await written();
    const { report, opened, index } = await reconcile(p);
    expect(report).toMatchObject({ checked: 2, opened: 0, repaired: [], reindexed: [], dropped: [], unreadable: [] });
    expect(opened).toBe(0);
    const held = index.indexedLogs();
    for (const f of p.logs) expect(held.get(f.id)?.end).toEqual({ n: f.records.length, bytes: sizeOf(p.path(f.id)) });
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
  });

  it("a log grown beyond its recorded size: the missing tail is applied, and the next check opens nothing", async () => {
    const p = await written(2);
    const { report, index } = await reconcile(p);
    const [a, b] = p.logs as [LogFixture, LogFixture];
    expect(report.opened).toBe(2);
    const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
    expect([...report.repaired].sort(byId)).toEqual([
      { id: a.id, from: a.records.length - 2, to: a.records.length },
      { id: b.id, from: b.records.length - 2, to: b.records.length },
    ].sort(byId));
    expect(report.reindexed).toEqual([]);
    expect(index.indexedPositions()).toEqual(new Map([[a.id, a.records.length], [b.id, b.records.length]]));
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
    const again = await reconcile(p);
    expect(again.report.opened).toBe(0);
    expect(again.opened).toBe(0);
  });

  it("a torn tail past the recorded size is cut and kept aside; the index had everything already", async () => {
    const p = await written();
    const [a] = p.logs as [LogFixture];
    const before = sizeOf(p.path(a.id));
    appendFileSync(p.path(a.id), '{"n":99,"at":1,"t":"read_fi');
    const { report, problems, index } = await reconcile(p);
    expect(report).toMatchObject({ opened: 1, repaired: [], reindexed: [], unreadable: [] });
    expect(problems.map((x) => x.kind)).toEqual(["torn_tail"]);
    expect(sizeOf(p.path(a.id))).toBe(before);
    expect(index.indexedLogs().get(a.id)?.end).toEqual({ n: a.records.length, bytes: before });
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
    expect((await reconcile(p)).opened).toBe(0);
  });

  it("new whole records and a torn tail after them: the records are applied, the torn line cut", async () => {
    const p = await written(1);
    const [a] = p.logs as [LogFixture];
    appendFileSync(p.path(a.id), '{"n":99,"at":1,"t":"re');
    const { report, problems, index } = await reconcile(p);
    expect(report.repaired.map((r) => r.id).sort()).toEqual(p.logs.map((f) => f.id).sort());
    expect(problems.map((x) => `${x.kind} ${x.id}`)).toEqual([`torn_tail ${a.id}`]);
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
  });

  it("a log shorter than recorded (cut at a line end while stopped): re-indexed whole from what is left", async () => {
    const p = await written();
    const [a] = p.logs as [LogFixture];
    const kept = lines(p.path(a.id)).slice(0, 4);
    writeFileSync(p.path(a.id), `${kept.join("\n")}\n`);
    const { report, index } = await reconcile(p);
    expect(report).toMatchObject({ opened: 1, repaired: [], reindexed: [a.id], unreadable: [] });
    expect(index.indexedPositions().get(a.id)).toBe(4);
    expect(index.indexedLogs().get(a.id)?.end).toEqual({ n: 4, bytes: sizeOf(p.path(a.id)) });
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
    expect((await reconcile(p)).opened).toBe(0);
  });

  it("a log shorter than recorded whose last record is still the indexed one (rewritten inside): read whole, the damaged line set aside, re-indexed from the rest", async () => {
    const p = await written();
    const [a, b] = p.logs as [LogFixture, LogFixture];
    const all = lines(p.path(a.id));
    all[3] = "garbage";
    writeFileSync(p.path(a.id), `${all.join("\n")}\n`);
    const { report, problems, index } = await reconcile(p);
    expect(report).toMatchObject({ opened: 1, reindexed: [a.id], unreadable: [] });
    expect(problems.map((x) => `${x.kind} ${x.id}`)).toEqual([`damaged_lines ${a.id}`]);
    expect([...index.indexedPositions().keys()].sort()).toEqual([a.id, b.id].sort());
    // The size recorded is the log's as it is after the line was set aside.
    expect(index.indexedLogs().get(a.id)?.end).toEqual({ n: a.records.at(-1)!.n, bytes: sizeOf(p.path(a.id)) });
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
    expect((await reconcile(p)).opened).toBe(0);
  });

  it("a log that grew past the index and has a damaged line among what was indexed: re-indexed whole, not only its tail", async () => {
    const p = await written(2);
    const [a] = p.logs as [LogFixture];
    const all = lines(p.path(a.id));
    // Same length: the log is longer than the index recorded, by its two new records only.
    all[2] = "#".repeat(Buffer.byteLength(all[2]!));
    writeFileSync(p.path(a.id), `${all.join("\n")}\n`);
    const { report, index } = await reconcile(p);
    expect(report.reindexed).toContain(a.id);
    expect(report.repaired.map((r) => r.id)).not.toContain(a.id);
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
  });

  it("a log shorter than recorded by a torn cut: the torn part kept aside, the conversation re-indexed", async () => {
    const p = await written();
    const [a] = p.logs as [LogFixture];
    truncateSync(p.path(a.id), sizeOf(p.path(a.id)) - 10);
    const { report, problems, index } = await reconcile(p);
    expect(report).toMatchObject({ opened: 1, reindexed: [a.id], unreadable: [] });
    expect(problems.map((x) => `${x.kind} ${x.id}`)).toEqual([`torn_tail ${a.id}`]);
    expect(index.indexedPositions().get(a.id)).toBe(a.records.length - 1);
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
  });

  it("a log the index does not know is applied whole; an index entry without a log is dropped", async () => {
    const p = await written();
    const [a, b] = p.logs as [LogFixture, LogFixture];
    // A conversation stored by a crashed process before the index took any of it...
    const other = scenario(1_700_100_000).logs[0]!;
    const log = new FileConversationLog(p.dir);
    await log.append(other.id, other.records);
    await log.close();
    // ...and one whose log is gone.
    unlinkSync(p.path(b.id));
    const { report, index } = await reconcile(p);
    expect(report).toMatchObject({ checked: 2, opened: 1, reindexed: [], dropped: [b.id], unreadable: [] });
    expect(report.repaired).toEqual([{ id: other.id, from: 0, to: other.records.length }]);
    expect(index.indexedLogs().has(b.id)).toBe(false);
    expect([...index.indexedPositions().keys()].sort()).toEqual([a.id, other.id].sort());
    index.close();
    expect(dumpIndex(p.indexPath)).toEqual(await rebuilt(p));
  });

  it("an index with no sizes recorded (from before they were) is checked by last position once, then by size", async () => {
    const p = await written();
    // Forget the sizes: an index of schema v3, migrated, has none.
    const raw = new Database(p.indexPath);
    raw.exec("DELETE FROM log_ends");
    raw.close();
    const first = await reconcile(p);
    expect(first.report).toMatchObject({ opened: 2, repaired: [], reindexed: [], unreadable: [] });
    for (const f of p.logs) expect(first.index.indexedLogs().get(f.id)?.end).toEqual({ n: f.records.length, bytes: sizeOf(p.path(f.id)) });
    first.index.close();
    const second = await reconcile(p);
    expect(second.report.opened).toBe(0);
    expect(second.opened).toBe(0);
  });
});
