// Opening a conversation's log looks in both places at once, the live directory and the archive
// (each look is a trip to libuv's thread pool and a turn of a busy event loop; a new
// conversation's file is in neither): the live log wins, the archived one is used only without
// it, and neither file descriptor is left behind.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileConversationLog, nodeFileOps, type FileOps } from "../../adapters/fs-log/index.js";
import { convId, countingOps, rec, tempDir } from "./fixtures/fs-log-fixtures.js";

describe("opening a log", () => {
  it("looks in the live directory and the archive at once before creating a new conversation's file", async () => {
    const dir = tempDir();
    let pending = 0, most = 0;
    let release: () => void = () => undefined;
    const both = new Promise<void>((r) => (release = r));
    const ops: FileOps = {
      ...nodeFileOps,
      open: async (path, create) => {
        if (create || !path.endsWith(".jsonl")) return nodeFileOps.open(path, create);
        most = Math.max(most, ++pending);
        if (pending === 2) release();
        // One look at a time would wait here for a second that never comes: bounded, not hung.
        await Promise.race([both, new Promise((r) => setTimeout(r, 500))]);
        pending--;
        return nodeFileOps.open(path, create);
      },
    };
    const log = new FileConversationLog(dir, { fileOps: ops });
    const id = convId("new");
    await log.append(id, [rec(1)]);
    expect(most).toBe(2);
    expect(readFileSync(join(dir, "conversations", `${id}.jsonl`), "utf8")).toContain('"n":1');
    await log.close();
  });

  it("takes the live log when both exist, the archived one only without it, and closes what it does not use", async () => {
    const dir = tempDir();
    const [both, archivedOnly] = [convId("both"), convId("archived only")];
    mkdirSync(join(dir, "conversations", "archive"), { recursive: true });
    const line = (n: number, tag: string) => `${JSON.stringify({ ...rec(n), path: tag })}\n`;
    writeFileSync(join(dir, "conversations", `${both}.jsonl`), line(1, "live"));
    writeFileSync(join(dir, "conversations", "archive", `${both}.jsonl`), line(1, "archived"));
    writeFileSync(join(dir, "conversations", "archive", `${archivedOnly}.jsonl`), line(1, "archived"));
    const counting = countingOps();
    const log = new FileConversationLog(dir, { fileOps: counting.ops });
    expect((await log.read(both)).map((r) => (r as { path: string }).path)).toEqual(["live"]);
    expect((await log.read(archivedOnly)).map((r) => (r as { path: string }).path)).toEqual(["archived"]);
    await log.close();
    expect(counting.open).toBe(0);
  });
});
