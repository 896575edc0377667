// Held index batches against the real parts: the file log over watched file calls
// (test/helpers/power-cut-ops.ts), the store, the index's writer thread and SQLite. The index
// applies a flush's records while the log writes them and must commit none before they are
// durable: at every moment, every message another connection can see in the index has a log line
// a power cut would keep. And when a flush fails for one file, that conversation's records never
// reach the index while the others' do (the held batch rolled back and sent again without them).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog, type FileOps } from "../../adapters/fs-log/index.js";
import { OnDemandIndexWriter, SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import type { IndexItem } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { filler, testProject } from "../helpers/events.js";
import { lineOf, powerCutOps } from "../helpers/power-cut-ops.js";
import { syncHookOps } from "../helpers/sync-hook-ops.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A store over a real log (`ops`) and index, its index written on its own thread; holds and rollbacks counted. */
async function setup(ops: FileOps) {
  const root = mkdtempSync(join(tmpdir(), "tenexd-held-"));
  dirs.push(root);
  const dir = join(root, "data");
  const log = new FileConversationLog(dir, { fileOps: ops });
  const indexPath = join(root, "index.sqlite");
  const index = new SqliteIndex({ path: indexPath });
  const writer = new OnDemandIndexWriter(index, { startAtRecords: 1 });
  const counts = { holds: 0, rollbacks: 0 };
  const hold = writer.hold.bind(writer);
  writer.hold = (items: readonly IndexItem[]) => {
    const sent = hold(items);
    if (sent) counts.holds++;
    return sent;
  };
  const rollback = writer.rollback.bind(writer);
  writer.rollback = () => (counts.rollbacks++, rollback());
  const errors: string[] = [];
  const store = new ConversationStore({ log, index, applier: writer, onIndexError: (err, id) => errors.push(`${id}: ${String(err)}`) });
  await store.init();
  const close = async () => {
    await store.indexed();
    await log.close();
    await writer.close();
    index.close();
  };
  return { dir, log, indexPath, index, store, counts, errors, close };
}

describe("held index batches", () => {
  it("every message the index shows, at any moment, has a log line a power cut would keep", async () => {
    const disk = powerCutOps();
    // Slow syncs: each flush's records wait long enough to be seen, were they committed early.
    const ops: FileOps = { ...disk.ops, fdatasync: async (fd) => (await sleep(15), disk.ops.fdatasync(fd)) };
    const s = await setup(ops);
    const p = testProject();
    const reader = new Database(s.indexPath, { readonly: true });
    const visible = reader.prepare<[], { conversation_id: string; event_id: string }>("SELECT conversation_id, event_id FROM messages");
    // 30 conversations, then 5 rounds of replies in all of them.
    const roots = Array.from({ length: 30 }, (_, i) => p.root(p.owner, `topic ${i} ${filler(i, 200)}`));
    const confirmed = new Set<string>();
    const failures: string[] = [];
    let looks = 0;
    // Looks that found the index part-filled: the run was under way (under a CPU hog, none may
    // land before the last append is durable, so "before the appends resolved" was not a guard).
    let partLooks = 0;
    let watching = true;
    // Looks at the index between turns of the test's event loop; a message once found durable
    // stays so (nothing is cut back here), so each is checked until it is.
    const look = () => {
      looks++;
      const rows = visible.all();
      if (rows.length > 0 && rows.length < roots.length * 6) partLooks++;
      for (const m of rows) {
        if (confirmed.has(m.event_id)) continue;
        const path = join(s.dir, "conversations", `${m.conversation_id}.jsonl`);
        let why: string | undefined;
        try {
          const [start, end] = lineOf(path, `"id":"${m.event_id}"`);
          why = disk.lostOnPowerCut(path, start, end, s.dir);
        } catch (e) {
          why = String(e); // in the index, not in its log at all
        }
        if (why) failures.push(`${m.event_id.slice(0, 8)}: ${why}`);
        else confirmed.add(m.event_id);
      }
    };
    const watcher = (async () => {
      while (watching) {
        look();
        await new Promise((r) => setImmediate(r));
      }
    })();

    // Each round issued while the one before is being flushed.
    const commits: Promise<void>[] = [];
    const commit = async (ev: NostrEvent, convId: string) => {
      const conv = await s.store.getOrCreate(convId, p.info.coordinate);
      commits.push(s.store.commit(conv, [{ t: "event", at: Date.now(), ev, origin: "relay" }]).durable);
    };
    for (const r of roots) await commit(r, r.id);
    for (let round = 0; round < 5; round++) {
      for (const [i, r] of roots.entries()) await commit(p.reply(p.owner, r, `reply ${round} ${filler(i, 150)}`), r.id);
      await sleep(5);
    }
    await Promise.all(commits);
    await s.store.indexed();
    watching = false;
    await watcher;
    look();
    expect(visible.all()).toHaveLength(roots.length * 6);
    reader.close();
    await s.close();

    expect(failures.slice(0, 5)).toEqual([]);
    expect(s.errors).toEqual([]);
    // The path under test ran: batches were held, and the watcher saw messages while they were.
    expect(s.counts.holds).toBeGreaterThan(1);
    expect(looks).toBeGreaterThan(20);
    expect(partLooks).toBeGreaterThan(0);
    expect(confirmed.size).toBe(roots.length * 6);
  });

  it("a flush that fails for one file: that conversation's records never reach the index, the others' all do", async () => {
    let failFor: string | undefined;
    const ops = syncHookOps(async (path) => {
      await sleep(5);
      if (failFor && path?.includes(failFor)) {
        failFor = undefined; // once: the cut-back's own sync goes through
        throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
      }
    });
    const s = await setup(ops);
    const p = testProject();
    const roots = Array.from({ length: 12 }, (_, i) => p.root(p.owner, `topic ${i}`));
    const commitAll = (evs: NostrEvent[]) => Promise.allSettled(evs.map(async (ev, i) => {
      const conv = await s.store.getOrCreate(roots[i]!.id, p.info.coordinate);
      return s.store.commit(conv, [{ t: "event", at: Date.now(), ev, origin: "relay" }]).durable;
    }));
    await commitAll(roots);
    await commitAll(roots.map((r) => p.reply(p.owner, r, "first reply")));
    const unlucky = roots[5]!.id;
    failFor = unlucky;
    const third = await commitAll(roots.map((r) => p.reply(p.owner, r, "second reply")));
    await s.store.indexed();

    expect(third.map((r) => r.status)).toEqual(roots.map((r) => (r.id === unlucky ? "rejected" : "fulfilled")));
    const db = new Database(s.indexPath, { readonly: true });
    const counts = new Map(db.prepare<[], [string, number]>("SELECT conversation_id, COUNT(*) FROM messages GROUP BY conversation_id").raw().all() as [string, number][]);
    db.close();
    await s.close();
    for (const r of roots) expect(counts.get(r.id), r.id).toBe(r.id === unlucky ? 2 : 3);
    // Rolled back, not failed: the index is whole (nothing to repair at the next start).
    expect(s.counts.rollbacks).toBe(1);
    expect(s.counts.holds).toBeGreaterThanOrEqual(3);
    expect(s.errors).toEqual([]);
  });
});
