// Damaged lines in a log (issue 13): only they are set aside. The log is rewritten without them
// (every other line byte for byte, positions with a gap), their bytes and a durable record of
// the damage are in quarantine/ first, and a log is moved aside whole only when no line of it
// parses. Hand-written damage on real files.

import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listDamage, clearDamage } from "../../adapters/fs-log/damage-records.js";
import { CorruptLogError, FileConversationLog, nodeFileOps, type FileOps, type LogProblem } from "../../adapters/fs-log/index.js";
import { convId, rec, recs, tempDir } from "./fixtures/fs-log-fixtures.js";

const NOW = 1_700_000_000_123;
const lines = (from: number, to: number) => recs(from, to).map((r) => JSON.stringify(r) + "\n").join("");
const ns = (records: readonly { n: number }[]) => records.map((r) => r.n);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function setup(id: string, content: string | Buffer, fileOps: FileOps = nodeFileOps) {
  const dir = tempDir();
  mkdirSync(join(dir, "conversations"), { recursive: true });
  const path = join(dir, "conversations", `${id}.jsonl`);
  writeFileSync(path, content);
  const reported: LogProblem[] = [];
  const log = new FileConversationLog(dir, { now: () => NOW, onProblem: (p) => reported.push(p), fileOps });
  return { dir, path, log, reported, quarantine: (name: string) => readFileSync(join(dir, "quarantine", name), "utf8") };
}

describe("a damaged line in the middle of a log is set aside, and only it", () => {
  it("garbage: the log keeps every other line byte for byte and the gap in positions; the bytes and a private record are in quarantine", async () => {
    const id = convId("garbage");
    const garbage = "\u0000\u0000}}} not json at all";
    const { dir, path, log, reported, quarantine } = setup(id, lines(1, 3) + garbage + "\n" + lines(5, 6));
    const first = await log.readWhole(id);
    expect(ns(first.records)).toEqual([1, 2, 3, 5, 6]);
    expect(first.setAside).toBe(1);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 3) + lines(5, 6));
    expect(first.end).toEqual({ n: 6, bytes: statSync(path).size });
    expect(quarantine(`${id}.damaged-${NOW}`)).toBe(garbage + "\n");

    const [record] = listDamage(dir);
    expect(record).toMatchObject({
      id: `${id.slice(0, 8)}-${NOW}`, kind: "damaged_lines", conversationId: id, log: `conversations/${id}.jsonl`, at: NOW,
      savedTo: `quarantine/${id}.damaged-${NOW}`,
      lines: [{ line: 4, offset: Buffer.byteLength(lines(1, 3)), bytes: Buffer.byteLength(garbage), why: "does not parse as a record" }],
    });
    expect(statSync(join(dir, "quarantine", `damage-${record!.id}.json`)).mode & 0o777).toBe(0o600);
    expect(reported).toEqual([expect.objectContaining({ id, kind: "damaged_lines", record })]);

    // Once set aside, it stays set aside: the next read finds a whole log, and appends follow it.
    const again = await log.readWhole(id);
    expect(ns(again.records)).toEqual([1, 2, 3, 5, 6]);
    expect(again.setAside).toBe(0);
    expect(reported).toHaveLength(1);
    await log.append(id, [rec(7)]);
    expect(ns(await log.read(id))).toEqual([1, 2, 3, 5, 6, 7]);
    await log.close();
  });

  it("a flipped digit in n costs that one line, not every line after it", async () => {
    const id = convId("flip");
    const flipped = JSON.stringify(rec(97));
    const { log, reported } = setup(id, lines(1, 3) + flipped + "\n" + lines(5, 40));
    expect(ns(await log.read(id))).toEqual([1, 2, 3, ...range(5, 40)]);
    expect(reported[0]!.record!.lines).toEqual([expect.objectContaining({ line: 4, why: "n=97 is out of order" })]);
    await log.close();
  });

  it("lines of the wrong shape, a repeated n and a damaged first line are set aside the same way", async () => {
    const cases: [string, string, number[]][] = [
      ["n as a string", lines(1, 2) + '{"n":"3","at":1,"t":"read"}\n' + lines(4, 5), [1, 2, 4, 5]],
      ["t not a string", lines(1, 2) + '{"n":3,"at":1,"t":7}\n' + lines(4, 5), [1, 2, 4, 5]],
      ["an array first", "[1,2]\n" + lines(2, 3), [2, 3]],
      ["n repeated", lines(1, 3) + lines(3, 4), [1, 2, 3, 4]],
    ];
    for (const [name, content, kept] of cases) {
      const id = convId(name);
      const { path, log, reported } = setup(id, content);
      expect(ns(await log.read(id)), name).toEqual(kept);
      expect(reported.map((p) => p.kind), name).toEqual(["damaged_lines"]);
      expect(readFileSync(path, "utf8"), name).toBe(kept.map((n) => JSON.stringify(rec(n)) + "\n").join(""));
      await log.close();
    }
  });

  it("is found by a read after a position too (read(afterN) reads backwards)", async () => {
    const id = convId("after");
    const { path, log } = setup(id, lines(1, 10) + "garbage\n" + lines(11, 12));
    expect(ns(await log.read(id, 8))).toEqual([9, 10, 11, 12]);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 12));
    await log.close();
  });

  it("two reads of the damaged log queued together both get the intact lines; it is recorded once", async () => {
    const id = convId("together");
    const { dir, log, reported } = setup(id, lines(1, 4) + "junk\n" + lines(5, 8));
    const [a, b] = await Promise.all([log.readWhole(id), log.readWhole(id)]);
    expect(ns(a.records)).toEqual(range(1, 8));
    expect(ns(b.records)).toEqual(range(1, 8));
    expect(a.setAside + b.setAside).toBe(1);
    expect(reported).toHaveLength(1);
    expect(listDamage(dir)).toHaveLength(1);
    await log.close();
  });

  it("when the disk refuses the rewrite, the intact lines are served anyway and the log is left as it was, to be set aside later", async () => {
    const id = convId("refused");
    const content = lines(1, 3) + "junk\n" + lines(5, 6);
    let full = true;
    const ops: FileOps = {
      ...nodeFileOps,
      open: (p, create) => (full && create ? Promise.reject(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" })) : nodeFileOps.open(p, create)),
    };
    const { path, log, reported } = setup(id, content, ops);
    const served = await log.readWhole(id);
    expect(ns(served.records)).toEqual([1, 2, 3, 5, 6]);
    expect(served.setAside).toBe(1);
    expect(readFileSync(path, "utf8")).toBe(content);
    expect(reported[0]).toMatchObject({ kind: "damaged_lines", detail: expect.stringContaining("ENOSPC") as unknown });
    full = false;
    expect(ns(await log.read(id))).toEqual([1, 2, 3, 5, 6]);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 3) + lines(5, 6));
    await log.close();
  });
});

describe("damaged lines at the end of a log", () => {
  it("more than a crash can tear (two whole lines): cut, recorded as damage, and told to the next reader", async () => {
    const id = convId("two bad");
    const { dir, path, log, reported, quarantine } = setup(id, lines(1, 3) + "bad\nworse\n");
    expect(await log.lastPosition(id)).toBe(3);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 3));
    expect(reported.map((p) => p.kind)).toEqual(["damaged_lines"]);
    expect(quarantine(`${id}.damaged-${NOW}`)).toBe("bad\nworse\n");
    expect(listDamage(dir)[0]!.lines.map((l) => l.bytes)).toEqual([3, 5]);
    // The reader that loads it must re-derive what it knew of those lines.
    expect((await log.readWhole(id)).setAside).toBe(2);
    expect((await log.readWhole(id)).setAside).toBe(0);
    await log.append(id, [rec(4)]);
    expect(ns(await log.read(id))).toEqual([1, 2, 3, 4]);
    await log.close();
  });
});

describe("a log in which no line parses", () => {
  it("is moved aside whole, recorded durably, and the conversation starts afresh", async () => {
    const id = convId("nothing");
    const content = "bad\nworse\n";
    const { dir, path, log, reported } = setup(id, content);
    const err = await log.read(id).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptLogError);
    expect(readFileSync(join(dir, "quarantine", `${id}.jsonl.${NOW}`), "utf8")).toBe(content);
    expect(() => statSync(path)).toThrow(/ENOENT/);
    expect(reported.map((p) => p.kind)).toEqual(["quarantined"]);
    expect(listDamage(dir)).toEqual([expect.objectContaining({ kind: "quarantined", conversationId: id, savedTo: `quarantine/${id}.jsonl.${NOW}` })]);
    await log.append(id, [rec(1)]);
    expect(await log.read(id)).toEqual([rec(1)]);
    await log.close();
  });
});

describe("damage records", () => {
  it("never overwrite one another when two findings share a timestamp; cleared ones are kept and no longer listed", async () => {
    const id = convId("twice");
    const { dir, path, log } = setup(id, "junk\n" + lines(2, 3));
    await log.read(id);
    writeFileSync(path, "more junk\n" + lines(2, 3));
    await log.read(id);
    expect(readdirSync(join(dir, "quarantine")).sort()).toEqual([
      `${id}.damaged-${NOW}`, `${id}.damaged-${NOW}-1`, `damage-${id.slice(0, 8)}-${NOW}-1.json`, `damage-${id.slice(0, 8)}-${NOW}.json`,
    ].sort());
    const open = listDamage(dir);
    expect(open.map((r) => r.savedTo)).toEqual([`quarantine/${id}.damaged-${NOW}`, `quarantine/${id}.damaged-${NOW}-1`]);
    expect(clearDamage(dir, [open[0]!.id, "no-such-record"], NOW + 1)).toEqual([open[0]!.id]);
    expect(listDamage(dir).map((r) => r.id)).toEqual([open[1]!.id]);
    expect(listDamage(dir, { all: true }).find((r) => r.id === open[0]!.id)?.clearedAt).toBe(NOW + 1);
    expect(clearDamage(dir, "all", NOW + 2)).toEqual([open[1]!.id]);
    expect(listDamage(dir)).toEqual([]);
    await log.close();
  });
});

describe("a damage record that does not parse", () => {
  it("is listed as such, never skipped, and clearing it keeps its bytes under another name", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "quarantine"));
    writeFileSync(join(dir, "quarantine", "damage-abc-1.json"), "{ half a record");
    const [record] = listDamage(dir);
    expect(record).toMatchObject({ id: "abc-1", unreadable: true, detail: expect.stringContaining("does not parse") as unknown });
    expect(clearDamage(dir, ["abc-1"], NOW)).toEqual(["abc-1"]);
    expect(listDamage(dir, { all: true })).toEqual([]);
    expect(readFileSync(join(dir, "quarantine", `damage-abc-1.json.cleared-${NOW}`), "utf8")).toBe("{ half a record");
  });
});
