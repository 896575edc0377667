import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileConversationLog, LogWriteError, nodeFileOps, type FileOps, type LogProblem } from "../../adapters/fs-log/index.js";
import { convId, rec, recs, tempDir } from "./fixtures/fs-log-fixtures.js";

const errno = (code: string) => Object.assign(new Error(`${code}: simulated disk failure`), { code });

/** Real file calls, except the ones a test arms to fail once, the way a full or broken disk does. */
function faultyOps() {
  const armed = { write: undefined as string | undefined, fdatasync: undefined as string | undefined, ftruncate: undefined as string | undefined, halfWrite: true };
  const ops: FileOps = {
    ...nodeFileOps,
    write: async (fd, buf, off, len, pos) => {
      const code = armed.write;
      if (!code) return nodeFileOps.write(fd, buf, off, len, pos);
      armed.write = undefined;
      // A full disk often takes part of a write before refusing the rest: here, up to mid-line.
      let half = Math.floor(len / 2);
      if (buf[off + half - 1] === 0x0a) half++;
      if (armed.halfWrite) await nodeFileOps.write(fd, buf, off, half, pos);
      throw errno(code);
    },
    fdatasync: async (fd) => {
      const code = armed.fdatasync;
      armed.fdatasync = undefined;
      if (code) throw errno(code);
      return nodeFileOps.fdatasync(fd);
    },
    ftruncate: async (fd, len) => {
      const code = armed.ftruncate;
      armed.ftruncate = undefined;
      if (code) throw errno(code);
      return nodeFileOps.ftruncate(fd, len);
    },
  };
  return { ops, armed };
}

const fileOf = (dir: string, id: string) => join(dir, "conversations", `${id}.jsonl`);
/** The records of a log file, read by hand: every line whole and parsing. */
function parses(path: string): { n: number }[] {
  const text = readFileSync(path, "utf8");
  if (text && !text.endsWith("\n")) throw new Error("the file ends in a half line");
  return text.split("\n").slice(0, -1).map((l) => JSON.parse(l) as { n: number });
}

describe("write failures", () => {
  it("rejects an append hit by ENOSPC mid-write, leaves no half line, and later appends work", async () => {
    const dir = tempDir();
    const { ops, armed } = faultyOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const id = convId("enospc");
    await log.append(id, recs(1, 3));
    const good = statSync(fileOf(dir, id)).size;

    armed.write = "ENOSPC";
    const failed = await log.append(id, recs(4, 40, 400)).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(LogWriteError);
    expect((failed as LogWriteError).message).toMatch(/ENOSPC/);
    expect(((failed as LogWriteError).cause as NodeJS.ErrnoException).code).toBe("ENOSPC");
    expect(statSync(fileOf(dir, id)).size).toBe(good);
    expect(await log.lastPosition(id)).toBe(3);

    await log.append(id, [rec(4)]);
    expect(parses(fileOf(dir, id)).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    await log.close();
  });

  it("fails only the appends of the file that hit the error; the rest of the flush is durable", async () => {
    const dir = tempDir();
    const { ops, armed } = faultyOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const [a, b] = [convId("a"), convId("b")];
    await Promise.all([log.append(a, [rec(1)]), log.append(b, [rec(1)])]);
    armed.write = "EIO";
    // Same flush: the first file written gets the error.
    const results = await Promise.allSettled([log.append(a, [rec(2)]), log.append(a, [rec(3)]), log.append(b, [rec(2)])]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect((await log.read(a)).map((r) => r.n)).toEqual([1]);
    expect((await log.read(b)).map((r) => r.n)).toEqual([1, 2]);
    await log.close();
  });

  it("rejects appends whose fdatasync failed and cuts them back out of the file", async () => {
    const dir = tempDir();
    const { ops, armed } = faultyOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const id = convId("eio sync");
    await log.append(id, recs(1, 2));
    armed.fdatasync = "EIO";
    await expect(log.append(id, [rec(3)])).rejects.toBeInstanceOf(LogWriteError);
    expect(parses(fileOf(dir, id)).map((r) => r.n)).toEqual([1, 2]);
    await log.append(id, [rec(3)]);
    expect((await log.read(id)).map((r) => r.n)).toEqual([1, 2, 3]);
    await log.close();
  });

  it("when even the cut-back fails, cuts the refused records on the next open before appending", async () => {
    const dir = tempDir();
    const { ops, armed } = faultyOps();
    const problems: LogProblem[] = [];
    const log = new FileConversationLog(dir, { fileOps: ops, onProblem: (p) => problems.push(p) });
    const id = convId("no truncate");
    await log.append(id, recs(1, 2));
    armed.write = "ENOSPC";
    armed.ftruncate = "EIO";
    await expect(log.append(id, recs(3, 10, 300))).rejects.toBeInstanceOf(LogWriteError);
    expect(() => parses(fileOf(dir, id))).toThrow(); // the half line is still there ...
    // ... until the file is reopened: cut back to before the refused append, bytes kept aside.
    await log.append(id, [rec(3)]);
    expect(problems.map((p) => p.kind)).toEqual(["torn_tail"]);
    expect(readFileSync(problems[0]!.path, "utf8")).toMatch(/^\{"n":3,.*\n\{"n":4,/);
    expect(parses(fileOf(dir, id)).map((r) => r.n)).toEqual([1, 2, 3]);
    await log.close();
  });
});
