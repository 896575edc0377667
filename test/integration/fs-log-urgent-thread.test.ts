// The urgent lane's thread (adapters/fs-log/thread-file-ops.ts): the same file calls as on
// libuv's pool, made with synchronous calls on a thread of its own. What a caller relies on:
// the same results, errors that still say which errno they were, descriptors shared with the
// main thread, a stopped thread failing its calls rather than hanging them, and a thread that
// keeps the process alive only while it owes an answer.

import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { nodeFileOps } from "../../adapters/fs-log/file-ops.js";
import { ThreadFileOps } from "../../adapters/fs-log/thread-file-ops.js";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { convId, rec, tempDir } from "./fixtures/fs-log-fixtures.js";

const DIST = (module: string) => pathToFileURL(join(import.meta.dirname, "../../dist", module)).href;

describe("the urgent lane's thread", () => {
  it("opens, writes, syncs, reads and closes as the pool's calls do, on descriptors either side opened", async () => {
    const dir = tempDir();
    const ops = new ThreadFileOps();
    try {
      const path = join(dir, "a.jsonl");
      const fd = await ops.open(path, true);
      expect(await ops.write(fd, Buffer.from("xxhello"), 2, 5, 0)).toBe(5);
      await ops.writeAndSync(fd, Buffer.from(" world\n"), 5);
      expect(await ops.fstat(fd)).toMatchObject({ size: 12 });
      const buf = Buffer.alloc(8, "-");
      expect(await ops.read(fd, buf, 2, 5, 6)).toBe(5);
      expect(buf.toString()).toBe("--world-");
      await ops.ftruncate(fd, 5);
      await ops.fdatasync(fd);
      await ops.close(fd);
      expect(readFileSync(path, "utf8")).toBe("hello");
      // Opened on libuv's pool, written on the thread, closed on the pool: one process's descriptors.
      const shared = await nodeFileOps.open(path, false);
      await ops.writeAndSync(shared, Buffer.from("!"), 5);
      await nodeFileOps.close(shared);
      expect(readFileSync(path, "utf8")).toBe("hello!");
      await ops.syncDir(dir);
    } finally {
      await ops.stop();
    }
  });

  it("rejects with the errno the call met, as the pool does", async () => {
    const dir = tempDir();
    const ops = new ThreadFileOps();
    try {
      const path = join(dir, "exists");
      writeFileSync(path, "");
      await expect(ops.open(path, true)).rejects.toMatchObject({ code: "EEXIST", syscall: "open", path });
      await expect(ops.open(join(dir, "missing"), false)).rejects.toMatchObject({ code: "ENOENT" });
      const readOnly = openSync(path, "r");
      try {
        await expect(ops.writeAndSync(readOnly, Buffer.from("x"), 0)).rejects.toMatchObject({ code: "EBADF" });
      } finally {
        closeSync(readOnly);
      }
      await expect(ops.syncDir(join(dir, "no-such-dir"))).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      await ops.stop();
    }
  });

  it("fails the calls in flight when its thread stops, and starts another for the next call", async () => {
    const dir = tempDir();
    const ops = new ThreadFileOps();
    const fd = openSync(join(dir, "f"), "w");
    try {
      ops.start();
      const inFlight = ops.fdatasync(fd);
      await ops.stop();
      await expect(inFlight).rejects.toThrow(/thread exited/);
      expect(ops.running).toBe(false);
      await ops.writeAndSync(fd, Buffer.from("again"), 0);
      expect(ops.running).toBe(true);
      expect(readFileSync(join(dir, "f"), "utf8")).toBe("again");
    } finally {
      closeSync(fd);
      await ops.stop();
    }
  });

  it("keeps the process alive while it owes an answer, and not once it is idle or the log is closed", () => {
    const dir = tempDir();
    // Top-level awaits of the thread's calls: a thread never referenced would let the process
    // exit with them unsettled (exit code 13). The log is then left open, its thread idle: the
    // process must still end by itself.
    const script = `
      import { FileConversationLog } from ${JSON.stringify(DIST("adapters/fs-log/index.js"))};
      const log = new FileConversationLog(${JSON.stringify(dir)});
      await log.append(${JSON.stringify(convId("a"))}, [{ n: 1, at: 1, t: "read_file", path: "x" }], true);
      log.warmUrgentLane();
      const second = new FileConversationLog(${JSON.stringify(join(dir, "second"))});
      await second.append(${JSON.stringify(convId("b"))}, [{ n: 1, at: 1, t: "read_file", path: "x" }], true);
      await second.close();
      console.log("appended");
    `;
    const file = join(dir, "append.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 20_000 });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("appended");
    expect(run.status).toBe(0);
    expect(readFileSync(join(dir, "conversations", `${convId("a")}.jsonl`), "utf8")).toContain('"t":"read_file"');
  });

  it("is the lane of a log's urgent appends unless the caller gave the file calls", async () => {
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const threads = () => (log as unknown as { urgentThread?: ThreadFileOps }).urgentThread;
    try {
      expect(threads()?.running).toBe(false);
      await log.append(convId("ordinary"), [rec(1)]);
      expect(threads()?.running).toBe(false);
      await log.append(convId("urgent"), [rec(1)], true);
      expect(threads()?.running).toBe(true);
      expect(await log.read(convId("urgent"))).toHaveLength(1);
    } finally {
      await log.close();
    }
    expect(threads()?.running).toBe(false);
    expect(new FileConversationLog(tempDir(), { fileOps: nodeFileOps }) as unknown as { urgentThread?: unknown }).toMatchObject({ urgentThread: undefined });
  });

  it("opens the first of a log's places that exists, or creates the first, in one call", async () => {
    const dir = tempDir();
    const ops = new ThreadFileOps();
    try {
      const [a, b, c] = ["a", "b", "c"].map((n) => join(dir, n)) as [string, string, string];
      writeFileSync(b, "b");
      writeFileSync(c, "c");
      const second = await ops.openFirst([a, b, c], true);
      expect(second).toMatchObject({ index: 1, created: false });
      await ops.close(second!.fd);
      expect(await ops.openFirst([a], false)).toBeUndefined();
      const made = await ops.openFirst([a, join(dir, "d")], true);
      expect(made).toMatchObject({ index: 0, created: true });
      await ops.writeAndSync(made!.fd, Buffer.from("a"), 0);
      await ops.close(made!.fd);
      expect(readFileSync(a, "utf8")).toBe("a");
      // Not "missing": a path under a file is an error, not a place to pass over.
      await expect(ops.openFirst([join(b, "x"), c], true)).rejects.toMatchObject({ code: "ENOTDIR" });
    } finally {
      await ops.stop();
    }
  });

  for (const lane of ["the thread", "libuv's pool"] as const) {
    it(`appends urgently to the live log, else the archived one, else a new file, on ${lane}`, async () => {
      const dir = tempDir();
      const [both, archivedOnly, fresh, broken] = [convId("both"), convId("archived only"), convId("new"), convId("broken")];
      mkdirSync(join(dir, "conversations", "archive"), { recursive: true });
      const line = (tag: string) => `${JSON.stringify({ ...rec(1), path: tag })}\n`;
      const live = (id: string) => join(dir, "conversations", `${id}.jsonl`);
      const archived = (id: string) => join(dir, "conversations", "archive", `${id}.jsonl`);
      writeFileSync(live(both), line("live"));
      writeFileSync(archived(both), line("archived"));
      writeFileSync(archived(archivedOnly), line("archived"));
      mkdirSync(live(broken));
      const log = new FileConversationLog(dir, lane === "the thread" ? {} : { fileOps: nodeFileOps });
      try {
        await log.append(both, [rec(2)], true);
        await log.append(archivedOnly, [rec(2)], true);
        await log.append(fresh, [rec(1)], true);
        await expect(log.append(broken, [rec(1)], true)).rejects.toMatchObject({ name: "LogWriteError" });
      } finally {
        await log.close();
      }
      const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l).n);
      expect(lines(live(both))).toEqual([1, 2]);
      expect(lines(archived(both))).toEqual([1]);
      expect(lines(archived(archivedOnly))).toEqual([1, 2]);
      expect(lines(live(fresh))).toEqual([1]);
    });
  }
});
