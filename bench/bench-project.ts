// A tenexd project for the benchmarks that run the daemon as a child process: config and
// agents.json written directly (every agent a mailbox, so no agent program ever runs), the
// bench keys as key files, and, for the restart figures, a store filled fast: records written
// through the real FileConversationLog and SqliteIndex exactly as the daemon folds them, without
// the relay and the verifier in front (those have their own figures).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileConversationLog } from "../adapters/fs-log/index.js";
import { SqliteIndex } from "../adapters/sqlite-index/index.js";
import { decideAddEvent, stamp } from "../src/conversation.js";
import { applyRecords, emptyConversation } from "../src/conversation-reducer.js";
import type { LogRecord } from "../src/records.js";
import type { NostrEvent } from "../src/types.js";
import { indexItem } from "../src/index-item.js";
import { projectRecipients } from "../src/messaging/recipients.js";
import { BENCH_D, benchProjectInfo, type BenchKeys } from "./workload.js";

export interface BenchProject {
  dir: string;
  tenexDir: string;
}

/** Writes `<dir>/.tenex/` for the bench keys, reading from `relays`. */
export function writeBenchProject(dir: string, keys: BenchKeys, relays: string[]): BenchProject {
  const tenexDir = join(dir, ".tenex");
  mkdirSync(join(tenexDir, "keys"), { recursive: true, mode: 0o700 });
  const keyFile = (name: string, sk: string) => {
    writeFileSync(join(tenexDir, "keys", `${name}.key`), `${sk}\n`, { mode: 0o600 });
    return `keys/${name}.key`;
  };
  const config = {
    project: { d: BENCH_D, title: "tenexd benchmark", owner: { keyFile: keyFile("owner", keys.owner.sk) } },
    relays,
    logLevel: "info",
  };
  const agents = {
    agents: keys.agents.map((a) => ({
      slug: a.slug, name: a.name, role: a.slug, orchestrator: a.orchestrator,
      key: { file: keyFile(a.slug, a.sk) }, backend: { type: "mailbox" },
    })),
  };
  writeFileSync(join(tenexDir, "config.json"), JSON.stringify(config, null, 2));
  writeFileSync(join(tenexDir, "agents.json"), JSON.stringify(agents, null, 2));
  return { dir, tenexDir };
}

export interface FillReport {
  conversations: number;
  events: number;
  newest: number;
  ms: number;
}

// Conversation appends in flight at once: enough to share fsyncs, bounded in memory.
const WINDOW = 64;

/**
 * Stores every conversation as the daemon would after receiving its events from `relay`: the
 * same records (decideAddEvent, stamp) in the log, the same rows in the index, and the relay's
 * high-water mark at the newest event.
 */
export async function fillStore(tenexDir: string, keys: BenchKeys, conversations: AsyncIterable<NostrEvent[]>, relay: string): Promise<FillReport> {
  const info = benchProjectInfo(keys);
  const log = new FileConversationLog(tenexDir);
  const index = new SqliteIndex({ path: join(tenexDir, "index.sqlite") });
  const recipientsOf = projectRecipients(info);
  const started = performance.now();
  const report: FillReport = { conversations: 0, events: 0, newest: 0, ms: 0 };
  const inflight = new Set<Promise<void>>();
  try {
    for await (const events of conversations) {
      const conv = emptyConversation(events[0]!.id, info.coordinate);
      const records: LogRecord[] = [];
      for (const ev of events) {
        const stamped = stamp(conv, decideAddEvent(conv, ev, "relay", ev.created_at * 1000));
        applyRecords(conv, stamped);
        records.push(...stamped);
        report.newest = Math.max(report.newest, ev.created_at);
      }
      report.conversations++;
      report.events += events.length;
      const p: Promise<void> = log.append(conv.id, records).then(() => index.applyBatch([indexItem(conv, records, recipientsOf)])).finally(() => inflight.delete(p));
      inflight.add(p);
      if (inflight.size >= WINDOW) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    index.setHighWater(relay, report.newest);
  } finally {
    await log.close();
    index.close();
  }
  report.ms = performance.now() - started;
  return report;
}
