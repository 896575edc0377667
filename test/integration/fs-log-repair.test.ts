import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CorruptLogError, FileConversationLog, InvalidIdError, type LogProblem } from "../../adapters/fs-log/index.js";
import { convId, countingOps, rec, recs, tempDir } from "./fixtures/fs-log-fixtures.js";

const NOW = 1_700_000_000_123;
const lines = (from: number, to: number) => recs(from, to).map((r) => JSON.stringify(r) + "\n").join("");

/** A data dir holding one hand-written log for `id`, and a log over it that records problems. */
function setup(id: string, content: string | Buffer) {
  const dir = tempDir();
  mkdirSync(join(dir, "conversations"), { recursive: true });
  const path = join(dir, "conversations", `${id}.jsonl`);
  writeFileSync(path, content);
  const reported: LogProblem[] = [];
  const log = new FileConversationLog(dir, { now: () => NOW, onProblem: (p) => reported.push(p) });
  return { dir, path, log, reported };
}

describe("torn tails are repaired", () => {
  it("cuts an unfinished last line, keeps its bytes in quarantine and the records before it", async () => {
    const id = convId("torn");
    const torn = '{"n":4,"at":1,"t":"rea';
    const { dir, path, log, reported } = setup(id, lines(1, 3) + torn);
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3]);
    const kept = join(dir, "quarantine", `${id}.torn-${NOW}`);
    expect(reported).toEqual([{ id, kind: "torn_tail", detail: expect.stringContaining("cut 22 bytes") as unknown, path: kept }]);
    expect(log.problems()).toEqual(reported);
    expect(readFileSync(kept, "utf8")).toBe(torn);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 3));
    await log.append(id, [rec(4)]);
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    await log.close();
  });

  it("cuts a whole last line that does not parse (zeros after a power loss, or the wrong shape)", async () => {
    const zeros = convId("zeros");
    const a = setup(zeros, Buffer.concat([Buffer.from(lines(1, 2)), Buffer.alloc(40), Buffer.from("\n")]));
    expect(await a.log.lastPosition(zeros)).toBe(2);
    expect(readFileSync(a.reported[0]!.path)).toEqual(Buffer.concat([Buffer.alloc(40), Buffer.from("\n")]));
    expect(await a.log.read(zeros)).toEqual(recs(1, 2));
    await a.log.close();

    const shape = convId("shape");
    const b = setup(shape, lines(1, 2) + '{"t":"read_file"}\n');
    expect(await b.log.read(shape)).toEqual(recs(1, 2));
    expect(b.reported.map((p) => p.kind)).toEqual(["torn_tail"]);
    await b.log.close();
  });

  it("repairs the tail before the first append after a crash, so no line is glued onto a torn one", async () => {
    const id = convId("glue");
    const { path, log, reported } = setup(id, lines(1, 5) + '{"n":6,"at"');
    await log.append(id, [rec(6), rec(7)]);
    expect(reported.map((p) => p.kind)).toEqual(["torn_tail"]);
    expect(readFileSync(path, "utf8")).toBe(lines(1, 7));
    await log.close();
  });

  it("cuts a log that is nothing but a torn line down to empty", async () => {
    const id = convId("only torn");
    const { path, log } = setup(id, '{"n":1,"at":');
    expect(await log.read(id)).toEqual([]);
    expect(statSync(path).size).toBe(0);
    await log.append(id, [rec(1)]);
    expect(await log.read(id)).toEqual([rec(1)]);
    await log.close();
  });
});

// Damaged lines (set aside one by one) are in fs-log-damage.test.ts; only a file in which no
// line parses is moved aside whole.
describe("logs in which no line parses are quarantined whole", () => {
  async function expectQuarantined(id: string, content: string, op: (log: FileConversationLog) => Promise<unknown>) {
    const { dir, path, log, reported } = setup(id, content);
    const err = await op(log).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptLogError);
    const moved = join(dir, "quarantine", `${id}.jsonl.${NOW}`);
    expect((err as CorruptLogError).quarantinedTo).toBe(moved);
    expect(readFileSync(moved, "utf8")).toBe(content); // kept whole, byte for byte
    expect(() => statSync(path)).toThrow(/ENOENT/);
    expect(reported).toEqual([{ id, kind: "quarantined", detail: (err as CorruptLogError).detail, path: moved, record: expect.objectContaining({ kind: "quarantined" }) as unknown }]);
    expect(log.problems()).toEqual(reported);
    // The conversation starts afresh; the quarantined file is the operator's to inspect.
    expect(await log.read(id)).toEqual([]);
    await log.close();
  }

  it("garbage only, or JSON that is not records: found by a read, by lastPosition", async () => {
    const a = convId("garbage only");
    await expectQuarantined(a, "}}} not json at all\nnor this\n", (log) => log.read(a));
    const b = convId("wrong schema");
    await expectQuarantined(b, '{"hello":"world"}\n{"not":"a record"}\n[1,2]\n', (log) => log.lastPosition(b));
  });

  it("refuses appends to it but keeps it whole, then starts the conversation afresh", async () => {
    const id = convId("append bad");
    const content = "bad\nworse\n";
    const { dir, log } = setup(id, content);
    await expect(log.append(id, [rec(1)])).rejects.toBeInstanceOf(CorruptLogError);
    expect(readFileSync(join(dir, "quarantine", `${id}.jsonl.${NOW}`), "utf8")).toBe(content);
    await log.append(id, [rec(1)]);
    expect(await log.read(id)).toEqual([rec(1)]);
    await log.close();
  });

  it("never overwrites earlier evidence when two problems share a timestamp", async () => {
    const id = convId("twice");
    const { dir, path, log } = setup(id, "junk\nmore\n");
    await expect(log.read(id)).rejects.toBeInstanceOf(CorruptLogError);
    writeFileSync(path, "more junk\nstill\n");
    await expect(log.read(id)).rejects.toBeInstanceOf(CorruptLogError);
    expect(readdirSync(join(dir, "quarantine")).filter((f) => !f.startsWith("damage-")).sort()).toEqual([`${id}.jsonl.${NOW}`, `${id}.jsonl.${NOW}-1`]);
    await log.close();
  });
});

describe("conversation ids", () => {
  const bad: unknown[] = ["../x", "a/b", convId("u").toUpperCase(), convId("short").slice(1), `${convId("dots").slice(0, 60)}/../`, "", 42, undefined];

  for (const id of bad) {
    it(`refuses ${JSON.stringify(id) ?? String(id)} before touching the disk`, async () => {
      const dir = tempDir();
      const counting = countingOps();
      const log = new FileConversationLog(dir, { fileOps: counting.ops });
      const sid = id as string;
      await expect(log.append(sid, [rec(1)])).rejects.toBeInstanceOf(InvalidIdError);
      await expect(log.read(sid)).rejects.toBeInstanceOf(InvalidIdError);
      await expect(log.lastPosition(sid)).rejects.toBeInstanceOf(InvalidIdError);
      await expect(log.setArchived(sid, true)).rejects.toBeInstanceOf(InvalidIdError);
      await log.close();
      expect(counting.calls).toEqual({});
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});
