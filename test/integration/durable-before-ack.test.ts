// Durability before acknowledgement (docs/architecture.md, "The log is the truth"), shown by what a
// power cut would leave, not by SIGKILL (which keeps the page cache, so a log that never fsyncs
// passes every kill test). The real log, store and ingest pipeline run over the real file calls,
// watched (power-cut-ops.ts): at every acknowledgement (a run started, the ingest promise, the
// append promise), every byte of that event's line, and the directory entries leading to its file,
// must already be covered by a completed fdatasync / directory fsync. Remove or defer the fdatasync
// in adapters/fs-log/group-commit.ts, or the directory fsync of a new file, and this fails.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { DEFAULT_LIMITS } from "../../src/edge/validate-inbound.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import { ConversationQueues } from "../../daemon/engine/ingest/conversation-queues.js";
import { IngestCounters } from "../../daemon/engine/ingest/counters.js";
import { InboundRoute } from "../../daemon/engine/ingest/route.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import type { NostrEvent } from "../../src/types.js";
import { filler, testProject } from "../helpers/events.js";
import { recordCase } from "../helpers/fault-tools.js";
import { lineOf, powerCutOps, type PowerCutOps } from "../helpers/power-cut-ops.js";
import { tempDir } from "../helpers/temp-dir.js";
import { convId, recs } from "./fixtures/fs-log-fixtures.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const root = mkdtempSync(join(tmpdir(), "tenexd-durable-"));
  dirs.push(root);
  // The data directory's own entry is the test's to make durable; everything under it is the log's.
  return join(root, "data");
}

/** Checks, at the moment of an acknowledgement, that `needle`'s line in `id`'s log would survive a power cut. */
function checker(disk: PowerCutOps, dir: string) {
  const failures: string[] = [];
  let checked = 0;
  return {
    failures,
    checked: () => checked,
    check(id: string, needle: string, when: string): void {
      checked++;
      const path = join(dir, "conversations", `${id}.jsonl`);
      let why: string | undefined;
      try {
        const [start, end] = lineOf(path, needle);
        why = disk.lostOnPowerCut(path, start, end, dir);
      } catch (e) {
        why = String(e);
      }
      if (why) failures.push(`${when} ${needle.slice(0, 40)}: ${why}`);
    },
  };
}

describe("durable before acknowledged (a power cut at any acknowledgement)", () => {
  it("the ingest pipeline acknowledges an event only once its line and its file's entry are fsync'd", async () => {
    const dir = dataDir();
    const disk = powerCutOps();
    const p = testProject();
    const planner = p.agents.planner!;
    const log = new FileConversationLog(dir, { fileOps: disk.ops, maxOpenFiles: 6 });
    const index = new SqliteIndex({ path: join(tempDir("tenexd-durable-ix-"), "index.sqlite") });
    const queues = new ConversationQueues(4);
    const store = new ConversationStore({ log, index, isBusy: (id) => queues.isBusy(id) });
    await store.init();
    const acks = checker(disk, dir);
    let runsAcked = 0;
    // The planner is a command agent here: events that p-tag it set it to work (src/runs.ts),
    // and its run_pending record must be durable before the run starts.
    const runnable = new Map<string, CommandAgent>([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    const pipeline = new InboundRoute({
      project: p.info, limits: DEFAULT_LIMITS, store, queues, counters: new IngestCounters(), clock: { now: () => Date.now() },
      verifier: { check: async (ev: NostrEvent) => wasmCheck(ev) },
      runnable, signers: new Map(),
    });
    // Where the route goes once an event is durable: the runs it starts are its acknowledgement.
    pipeline.connect({
      runs: {
        trigger: (convId, _agent, ev) => {
          runsAcked++;
          acks.check(convId, `"id":"${ev.id}"`, "run started");
          acks.check(convId, `"trigger":"${ev.id}"`, "run started (run_pending)");
        },
      },
      outbox: { enqueue: async () => undefined },
      threads: { request: () => undefined },
    });

    // 12 conversations started at once (new files, one group commit), then rounds of replies in
    // all of them at once, more conversations than open files (descriptors closed and reused).
    const roots = Array.from({ length: 12 }, (_, i) => p.root(p.owner, `conversation ${i} ${filler(i, 300)}`, i % 3 === 0 ? [planner.pubkey] : []));
    const ingestAll = (evs: NostrEvent[]) => Promise.all(evs.map(async (ev) => {
      const out = await pipeline.ingest(ev);
      expect(out.status, JSON.stringify(out)).toBe("accepted");
      const conv = out.status === "accepted" ? out.conversationId : "";
      acks.check(conv, `"id":"${ev.id}"`, "ingest resolved");
    }));
    await ingestAll(roots);
    for (let round = 0; round < 5; round++) {
      await ingestAll(roots.map((r, i) => p.reply(p.owner, r, `reply ${round} ${filler(i, 200 + 50 * round)}`, round === 2 ? [planner.pubkey] : [])));
    }
    await queues.idle();
    await store.indexed();
    await log.close();
    index.close();

    const events = roots.length * 6;
    recordCase("durable-before-ack", {
      case: "durable before acknowledged (power cut at each acknowledgement)", asked: events + 2 * 16, ran: acks.checked(),
      unit: "acknowledgements", inputs: events, lost: acks.failures.length,
    });
    // Each event checked when its ingest resolved, each run (its trigger and its run_pending) when it started: none passed unchecked.
    expect(acks.checked()).toBe(events + 2 * runsAcked);
    expect(runsAcked).toBe(4 + 12);
    expect(acks.failures).toEqual([]);
    expect(disk.syncs()).toBeGreaterThan(0);
  });

  it("the log's append promise resolves only once its lines are fsync'd, across group commits of many files", async () => {
    const dir = dataDir();
    const disk = powerCutOps();
    const log = new FileConversationLog(dir, { fileOps: disk.ops, maxOpenFiles: 3 });
    const acks = checker(disk, dir);
    const ids = Array.from({ length: 8 }, (_, i) => convId(`durable-${i}`));
    // Pipelined appends: rounds issued a moment apart, without waiting for the earlier ones, so
    // several appends per file are in flight at once across flushes.
    const acked: Promise<void>[] = [];
    for (let k = 0; k < 4; k++) {
      for (const [f, id] of ids.entries()) {
        const last = 5 + k * 5;
        acked.push(log.append(id, recs(1 + k * 5, last, 100 + f * 10)).then(() => acks.check(id, `{"n":${last},`, "append resolved")));
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(acked);
    await log.close();
    expect(acks.checked()).toBe(ids.length * 4);
    expect(acks.failures).toEqual([]);
  });
});
