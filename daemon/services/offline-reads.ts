// Reads when no daemon runs: the index opened read-only, conversations replayed from their log
// files without touching them (no repair: a torn last line is skipped, as the daemon would cut
// it). Nothing on disk changes.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { LogRecord } from "../../src/records.js";
import { parseRecordLine } from "../../adapters/fs-log/record-line.js";
import type { LoadedProject } from "../config/index.js";
import { AgentDirectory } from "./agent-directory.js";
import { openIndexReader } from "./index-reader.js";
import { readContext } from "./read-context.js";
import { Reads } from "./reads.js";

export class CorruptLogReadError extends Error {
  override name = "CorruptLogReadError";
}

async function readLogFile(tenexDir: string, id: string): Promise<string | undefined> {
  for (const file of [join(tenexDir, "conversations", `${id}.jsonl`), join(tenexDir, "conversations", "archive", `${id}.jsonl`)]) {
    try {
      return await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return undefined;
}

/** The conversation replayed from its log file, read-only; undefined when there is none. */
export async function replayLogFile(tenexDir: string, id: string): Promise<Conversation | undefined> {
  const text = await readLogFile(tenexDir, id);
  if (text === undefined) return undefined;
  const lines = text.split("\n");
  lines.pop(); // after the last newline: empty, or a torn line the daemon will cut
  const records: LogRecord[] = lines.map((line, i) => {
    const rec = parseRecordLine(line);
    if (!rec) throw new CorruptLogReadError(`the log of conversation ${id} does not parse at line ${i + 1}: start the daemon to quarantine and report it`);
    return rec;
  });
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
