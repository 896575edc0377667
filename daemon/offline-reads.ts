// The read port when no daemon runs (src/ports.ts): the index opened read-only, conversations
// replayed from their log files without touching them (no repair: a torn last line is skipped,
// as the daemon would cut it, and so is a damaged line, which the daemon would set aside), the
// damage records as they are. Nothing on disk changes.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { replay } from "../src/conversation-reducer.js";
import type { Conversation } from "../src/conversation-state.js";
import type { ReadPort } from "../src/ports.js";
import { listDamage } from "../adapters/fs-log/damage-records.js";
import { scanLines } from "../adapters/fs-log/intact-lines.js";
import type { LoadedProject } from "./config/index.js";
import { openIndexReader } from "../adapters/sqlite-index/open-index-reader.js";

async function readLogFile(tenexDir: string, id: string): Promise<Buffer | undefined> {
  for (const file of [join(tenexDir, "conversations", `${id}.jsonl`), join(tenexDir, "conversations", "archive", `${id}.jsonl`)]) {
    try {
      return await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return undefined;
}

/** The conversation replayed from the intact lines of its log file, read-only; undefined when there is none. */
export async function replayLogFile(tenexDir: string, id: string): Promise<Conversation | undefined> {
  const bytes = await readLogFile(tenexDir, id);
  if (bytes === undefined) return undefined;
  // After the last newline: nothing, or a torn line the daemon will cut.
  const { records } = scanLines(bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1));
  return records.length > 0 ? replay(id, records) : undefined;
}

export function openOfflineReads(project: LoadedProject, now: () => number = Date.now): ReadPort {
  const index = openIndexReader(join(project.tenexDir, "index.sqlite"));
  return {
    index, now, load: (id) => replayLogFile(project.tenexDir, id),
    damage: () => listDamage(project.tenexDir), close: () => index.close(),
  };
}
