import { describe, expect, it } from "vitest";
import { ProblemList, problemShape, worthLogging } from "../../src/problem-list.js";

const id = (c: string) => c.repeat(64);

describe("ProblemList", () => {
  it("one failing cause is one entry with its count, first and last time, latest detail", () => {
    const list = new ProblemList();
    list.note("log_stray_file", "notes.txt: not a conversation log", 1);
    for (let i = 0; i < 100; i++) {
      list.note("ingest_failed", `LogWriteError: append to ${id(String(i % 10))} failed: ENOSPC: no space left on device, write`, 10 + i);
    }
    const all = list.list();
    expect(all).toHaveLength(2);
    expect(all[0]).toEqual({ kind: "log_stray_file", detail: "notes.txt: not a conversation log", count: 1, first: 1, last: 1 });
    expect(all[1]).toEqual(expect.objectContaining({ kind: "ingest_failed", count: 100, first: 10, last: 109 }));
    expect(all[1]!.detail).toContain(id("9"));
  });

  it("different causes of one kind are different entries", () => {
    const list = new ProblemList();
    list.note("ingest_failed", "EROFS: read-only file system", 1);
    list.note("ingest_failed", "ENOSPC: no space left on device", 2);
    list.note("ingest_failed", "EROFS: read-only file system", 3);
    expect(list.list().map((p) => [p.detail, p.count])).toEqual([["ENOSPC: no space left on device", 1], ["EROFS: read-only file system", 2]]);
  });

  it("a kind with many distinct details keeps only its share; other kinds stay", () => {
    const list = new ProblemList({ entries: 10, perKind: 3 });
    list.note("index_unusable", "index.sqlite: file is not a database", 0);
    for (let i = 0; i < 50; i++) list.note("thread_fetch_failed", `relay ${"abcdefghij"[i % 10]}${"klmnopqrst"[Math.floor(i / 10)]} timed out`, i + 1);
    const kinds = list.list().map((p) => p.kind);
    expect(kinds.filter((k) => k === "thread_fetch_failed")).toHaveLength(3);
    expect(kinds).toContain("index_unusable");
  });

  it("holds at most `entries` distinct entries, dropping the least recently seen", () => {
    const list = new ProblemList({ entries: 3, perKind: 3 });
    list.note("a", "x", 1);
    list.note("b", "x", 2);
    list.note("c", "x", 3);
    list.note("a", "x", 4); // seen again: now the most recent
    list.note("d", "x", 5);
    expect(list.list().map((p) => p.kind)).toEqual(["c", "a", "d"]);
  });

  it("problemShape ignores ids, hex runs and numbers", () => {
    expect(problemShape(`append to ${id("a")} failed at 1234 bytes, port 4711, ref deadbeef01`)).toBe("append to <id> failed at <n> bytes, port <n>, ref <hex>");
  });

  it("logs the first ten occurrences, then at 100, 1,000, …", () => {
    const logged = Array.from({ length: 2000 }, (_, i) => i + 1).filter(worthLogging);
    expect(logged).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 1000]);
  });
});
