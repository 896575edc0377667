// FileConversationLog throughput with pipelined appends, as the daemon issues them: one append
// per event (~0.9 KB record), up to WINDOW unacknowledged at once, each resolving only when
// durable. On one conversation, and spread over 200. Read beside the raw fsync limit.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { FileConversationLog } from "../adapters/fs-log/index.js";
import type { LogRecord } from "../src/records.js";
import type { Figure } from "./figure.js";
import { measureFsyncLimit } from "./fsync-limit.js";

const RECORDS = 20_000;
const WINDOW = 4096;
const PAD = "lorem ipsum dolor sit amet ".repeat(33).slice(0, 820);

const idOf = (i: number) => createHash("sha256").update(`bench conversation ${i}`).digest("hex");

/** Appends RECORDS records round-robin over `conversations`; returns records/s and the log's counters. */
async function run(conversations: number) {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-log-bench-"));
  const log = new FileConversationLog(dir);
  const ids = Array.from({ length: conversations }, (_, i) => idOf(i));
  const next = new Array<number>(conversations).fill(1);
  let inflight = 0;
  let wake: () => void = () => undefined;
  const settled = () => {
    inflight--;
    wake();
  };
  try {
    const start = performance.now();
    for (let i = 0; i < RECORDS; i++) {
      const c = i % conversations;
      const n = next[c]!++;
      const record: LogRecord = { n, at: Date.now(), t: "read_file", path: `${n} ${PAD}` };
      inflight++;
      log.append(ids[c]!, [record]).then(settled, (e: unknown) => {
        throw e;
      });
      if (inflight >= WINDOW) await new Promise<void>((r) => (wake = r));
    }
    while (inflight > 0) await new Promise<void>((r) => (wake = r));
    const seconds = (performance.now() - start) / 1000;
    const stats = log.stats();
    return { rps: RECORDS / seconds, stats };
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLogAppend(): Promise<Figure[]> {
  const limit = Math.round(measureFsyncLimit().linesPerSec);
  const figures: Figure[] = [];
  for (const [conversations, goal] of [[1, "≥ 3000 (the 1-conversation ingest goal)"], [200, "≥ 10000 (the 200-conversation ingest goal)"]] as const) {
    const { rps, stats } = await run(conversations);
    figures.push({
      name: `log_append_${conversations}conv_rps`, value: Math.round(rps), unit: "records/s", goal, limit,
      note: `${RECORDS} × 0.9 KB records, ${WINDOW} in flight; ${stats.flushes} flushes, ${stats.syncs} syncs, ` +
        `${Math.round(stats.records / stats.flushes)} records per flush`,
    });
  }
  return figures;
}
