// Reads when no daemon runs: the index opened read-only, conversations replayed from their log
// files without touching them (no repair: a torn last line is skipped, as the daemon would cut
// it, and so is a damaged line, which the daemon would set aside). Nothing on disk changes.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { scanLines } from "../../adapters/fs-log/intact-lines.js";
import type { LoadedProject } from "../config/index.js";
import { AgentDirectory } from "./agent-directory.js";
import { openIndexReader } from "./index-reader.js";
import { readContext } from "./read-context.js";
import { Reads } from "./reads.js";

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

export function openOfflineReads(project: LoadedProject, now: () => number = Date.now): { reads: Reads; close(): void } {
  const reader = openIndexReader(join(project.tenexDir, "index.sqlite"));
  const ctx = readContext({
    reader, agents: new AgentDirectory(project.info), limits: project.config.limits,
    load: (id) => replayLogFile(project.tenexDir, id), now,
  });
  return { reads: new Reads(ctx), close: () => reader.close() };
}
