// An urgent append (src/log-urgency.ts: an agent waits on it) is flushed beside a flush of other
// files that is stuck on the disk, not behind it, and every file's records stay in order.
// The disk is real; only the sync of one chosen file is held until the test lets it go.

import { pbkdf2 } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileConversationLog, nodeFileOps, type FileOps } from "../../adapters/fs-log/index.js";
import { isUrgent } from "../../src/log-urgency.js";
import { syncHookOps } from "../helpers/sync-hook-ops.js";
import { convId, rec, tempDir } from "./fixtures/fs-log-fixtures.js";

/** Real file calls; the fdatasync of the file whose name contains `held` waits for `release`. */
function holdingOps() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const state = { held: "", holding: false, release };
  const ops = syncHookOps(async (path) => {
    if (state.held && path?.includes(state.held)) {
      state.holding = true;
      await released;
    }
  });
  return { ops, state };
}

/** Real file calls; the fdatasync of a file whose name contains one of `names` waits for `release(name)`. */
function heldSyncs(...names: string[]) {
  const releases = new Map<string, () => void>();
  const gates = new Map(names.map((n) => [n, new Promise<void>((r) => releases.set(n, r))] as const));
  const holding = new Set<string>();
  const ops = syncHookOps(async (path) => {
    for (const [name, gate] of gates) {
      if (!path?.includes(name)) continue;
      holding.add(name);
      await gate;
    }
  });
  return { ops, holding, release: (name: string) => releases.get(name)!() };
}

/** A file call that, once armed, waits in `pass` until `open`; `reached` once one did. */
function callGate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const gate = {
    armed: false,
    reached: false,
    open,
    async pass(): Promise<void> {
      if (!gate.armed) return;
      gate.reached = true;
      await opened;
    },
  };
  return gate;
}

const settled = (p: Promise<unknown>) => p.then(() => "durable", (e: unknown) => `failed: ${String(e)}`);
/** What `p` came to within `ms`, or "still waiting". */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([settled(p), new Promise<string>((r) => setTimeout(() => r("still waiting"), ms))]);
const ns = (dir: string, id: string) =>
  readFileSync(join(dir, "conversations", `${id}.jsonl`), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { n: number }).n);

/** `conv`'s two appends are durable, in order, while `stuck` still waits; then `release` lets it finish. */
async function durableBeforeTheStuckFlush(o: { dir: string; conv: string; both: Promise<unknown>; stuck: Promise<unknown>; release: () => void }) {
  expect(await within(o.both, 10_000)).toBe("durable");
  expect(ns(o.dir, o.conv)).toEqual([1, 2]);
  expect(await within(o.stuck, 50)).toBe("still waiting");
  o.release();
  expect(await settled(o.stuck)).toBe("durable");
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error("the flush never reached the held sync");
}

describe("express flushes", () => {
  it("makes an urgent append to a new conversation durable while another file's flush is stuck", async () => {
    const dir = tempDir();
    const { ops, state } = holdingOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const [busy, trigger] = [convId("busy"), convId("trigger")];
    state.held = busy;
    const stuck = log.append(busy, [rec(1)]);
    await until(() => state.holding);
    const urgent = log.append(trigger, [rec(1)], true);
    // Behind the stuck flush it would wait as long as the disk does: here, for ever.
    expect(await within(urgent, 10_000)).toBe("durable");
    expect(ns(dir, trigger)).toEqual([1]);
    expect(await within(stuck, 50)).toBe("still waiting");
    state.release();
    expect(await settled(stuck)).toBe("durable");
    await log.close();
  });

  it("takes the conversation's appends already waiting along, keeps them in order, and leaves a file the stuck flush holds where it is", async () => {
    const dir = tempDir();
    const { ops, state } = holdingOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const [busy, conv] = [convId("busy 2"), convId("conv")];
    await log.append(conv, [rec(1)]);
    state.held = busy;
    const stuck = log.append(busy, [rec(1)]);
    await until(() => state.holding);
    const waiting = log.append(conv, [rec(2)]);
    const urgent = log.append(conv, [rec(3)], true);
    const after = log.append(conv, [rec(4)]);
    // The stuck file's own urgent append cannot pass its flush.
    const sameFile = log.append(busy, [rec(2)], true);
    expect(await within(Promise.all([waiting, urgent, after]), 10_000)).toBe("durable");
    expect(ns(dir, conv)).toEqual([1, 2, 3, 4]);
    expect(await within(sameFile, 50)).toBe("still waiting");
    state.release();
    expect(await settled(Promise.all([stuck, sameFile]))).toBe("durable");
    expect(ns(dir, busy)).toEqual([1, 2]);
    await log.close();
  });

  it("does not pass a read of the same file queued before it: the reader sees none of it", async () => {
    const dir = tempDir();
    const { ops, state } = holdingOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const [busy, conv] = [convId("busy 3"), convId("read conv")];
    await log.append(conv, [rec(1)]);
    state.held = busy;
    const stuck = log.append(busy, [rec(1)]);
    await until(() => state.holding);
    const read = log.read(conv);
    const urgent = log.append(conv, [rec(2)], true);
    state.release();
    await Promise.all([stuck, urgent]);
    expect((await read).map((r) => r.n)).toEqual([1]);
    expect((await log.read(conv)).map((r) => r.n)).toEqual([1, 2]);
    await log.close();
  });

  it("flushes an urgent append beside a group of reads of other files under way, not behind it and the batch after it", async () => {
    const dir = tempDir();
    const [reading, busy, trigger] = [convId("reading 5"), convId("busy 5"), convId("trigger 5")];
    const held = heldSyncs(busy);
    const gate = callGate();
    const ops: FileOps = {
      ...held.ops,
      open: async (path, create) => {
        if (!create && path.includes(reading)) await gate.pass();
        return held.ops.open(path, create);
      },
    };
    const log = new FileConversationLog(dir, { fileOps: ops });
    await log.append(reading, [rec(1)]);
    gate.armed = true;
    const read = log.read(reading);
    await until(() => gate.reached);
    const stuck = log.append(busy, [rec(1)]);
    const urgent = log.append(trigger, [rec(1)], true);
    expect(await within(urgent, 10_000)).toBe("durable");
    expect(ns(dir, trigger)).toEqual([1]);
    expect(await within(read, 50)).toBe("still waiting");
    gate.open();
    expect((await read).map((r) => r.n)).toEqual([1]);
    held.release(busy);
    expect(await settled(stuck)).toBe("durable");
    await log.close();
  });

  it("flushes an urgent append held by an exclusive operation as soon as it is done, not behind the next batch", async () => {
    const dir = tempDir();
    const [moved, busy, trigger] = [convId("moved 6"), convId("busy 6"), convId("trigger 6")];
    const held = heldSyncs(busy);
    const gate = callGate();
    const ops: FileOps = {
      ...held.ops,
      syncDir: async (path) => {
        if (path.endsWith("archive")) await gate.pass();
        return held.ops.syncDir(path);
      },
    };
    const log = new FileConversationLog(dir, { fileOps: ops });
    await log.append(moved, [rec(1)]);
    gate.armed = true;
    const moving = log.setArchived(moved, true);
    await until(() => gate.reached);
    const stuck = log.append(busy, [rec(1)]);
    const urgent = log.append(trigger, [rec(1)], true);
    // An exclusive operation is alone on the files.
    expect(await within(urgent, 100)).toBe("still waiting");
    gate.open();
    await moving;
    expect(await within(urgent, 10_000)).toBe("durable");
    expect(ns(dir, trigger)).toEqual([1]);
    expect(await within(stuck, 50)).toBe("still waiting");
    held.release(busy);
    expect(await settled(stuck)).toBe("durable");
    await log.close();
  });

  it("refuses a new conversation's records when its directory's sync fails, though their own sync ran beside it", async () => {
    const dir = tempDir();
    let failDir = false;
    const ops: FileOps = {
      ...nodeFileOps,
      syncDir: async (path) => {
        if (!failDir) return nodeFileOps.syncDir(path);
        failDir = false;
        throw Object.assign(new Error("EIO: simulated disk failure"), { code: "EIO" });
      },
    };
    const log = new FileConversationLog(dir, { fileOps: ops });
    // The data directory's own entries are made and synced by the first file.
    await log.append(convId("first"), [rec(1)]);
    failDir = true;
    const fresh = convId("fresh");
    expect(await settled(log.append(fresh, [rec(1)], true))).toMatch(/failed: .*EIO/);
    expect(readFileSync(join(dir, "conversations", `${fresh}.jsonl`), "utf8")).toBe("");
    await log.append(fresh, [rec(1)]);
    expect(ns(dir, fresh)).toEqual([1]);
    await log.close();
  });

  it("flushes an urgent append at once when no flush runs, not in the batch about to start with a file whose sync hangs", async () => {
    const dir = tempDir();
    const { ops, state } = holdingOps();
    const log = new FileConversationLog(dir, { fileOps: ops });
    const [slow, trigger] = [convId("slow"), convId("idle trigger")];
    await log.append(trigger, [rec(1)]);
    state.held = slow;
    // Issued together while the writer is idle: before, both went into the one batch kicked here.
    const bulk = log.append(slow, [rec(1)]);
    const urgent = log.append(trigger, [rec(2)], true);
    expect(await within(urgent, 10_000)).toBe("durable");
    expect(ns(dir, trigger)).toEqual([1, 2]);
    expect(await within(bulk, 50)).toBe("still waiting");
    state.release();
    expect(await settled(bulk)).toBe("durable");
    await log.close();
  });

  it("flushes an urgent append to a file in the flush under way once that file's part is durable, not after the whole flush", async () => {
    const dir = tempDir();
    const [busy, conv] = [convId("busy 5"), convId("held conv")];
    const { ops, holding, release } = heldSyncs(busy, conv);
    const log = new FileConversationLog(dir, { fileOps: ops });
    const stuck = log.append(busy, [rec(1)]);
    const first = log.append(conv, [rec(1)]);
    await until(() => holding.has(busy) && holding.has(conv));
    const urgent = log.append(conv, [rec(2)], true);
    expect(await within(urgent, 50)).toBe("still waiting");
    release(conv);
    await durableBeforeTheStuckFlush({ dir, conv, both: Promise.all([first, urgent]), stuck, release: () => release(busy) });
    await log.close();
  });

  it("flushes an urgent append to a file in an express flush under way right after it, not in the next batch", async () => {
    const dir = tempDir();
    const [busy, conv] = [convId("busy 6"), convId("express conv")];
    const { ops, holding, release } = heldSyncs(busy, conv);
    const log = new FileConversationLog(dir, { fileOps: ops });
    const stuck = log.append(busy, [rec(1)]);
    await until(() => holding.has(busy));
    // A run's cursor goes express; its answer comes while that flush is still syncing.
    const cursor = log.append(conv, [rec(1)], true);
    await until(() => holding.has(conv));
    const answer = log.append(conv, [rec(2)], true);
    release(conv);
    // Before: in the next batch, which waits for `busy`'s flush.
    await durableBeforeTheStuckFlush({ dir, conv, both: Promise.all([cursor, answer]), stuck, release: () => release(busy) });
    await log.close();
  });

  it("flushes an urgent append to a file in the flush under way right after its part, ahead of the next batch", async () => {
    const dir = tempDir();
    const [busy, conv, slow] = [convId("busy 4"), convId("answer conv"), convId("slow 4")];
    const { ops, holding, release } = heldSyncs(busy, slow);
    const log = new FileConversationLog(dir, { fileOps: ops });
    // `conv`'s earlier records share a flush with `busy`, whose sync hangs.
    const stuck = Promise.all([log.append(busy, [rec(1)]), log.append(conv, [rec(1)])]);
    await until(() => holding.has(busy));
    // Bulk traffic for another file waits for the next flush, whose sync will hang too.
    const bulk = log.append(slow, [rec(1)]);
    // The agent's answer to `conv`: it cannot go beside the flush that holds `conv`.
    const urgent = log.append(conv, [rec(2)], true);
    // `conv`'s part of that flush is durable: the answer goes now, though `busy`'s sync still hangs.
    // Before: after that whole flush; before that, in the next batch, behind `slow`'s sync too.
    expect(await within(urgent, 10_000)).toBe("durable");
    expect(ns(dir, conv)).toEqual([1, 2]);
    expect(await within(stuck, 50)).toBe("still waiting");
    expect(await within(bulk, 50)).toBe("still waiting");
    release(busy);
    await stuck;
    expect(await within(bulk, 50)).toBe("still waiting");
    release(slow);
    expect(await settled(bulk)).toBe("durable");
    expect(ns(dir, slow)).toEqual([1]);
    await log.close();
  });

  it("does not queue an urgent append's file calls behind a large flush's in libuv's thread pool", async () => {
    // A slow disk as the pool sees it: each sync of a bulk file first holds a pool thread ~10 ms
    // (pbkdf2 runs there). 60 such files take ~150-200 ms to flush on 4 threads; an urgent append
    // whose calls queued behind theirs became durable only as the last of them did.
    const dir = tempDir();
    const bulkIds = Array.from({ length: 60 }, (_, i) => convId(`bulk ${i}`));
    const slowFds = new Set<number>();
    const holdPoolThread = () => new Promise<void>((r) => pbkdf2("slow", "disk", 20_000, 32, "sha256", () => r()));
    const ops: FileOps = {
      ...nodeFileOps,
      open: async (path, create) => {
        const fd = await nodeFileOps.open(path, create);
        if (bulkIds.some((id) => path.includes(id))) slowFds.add(fd);
        return fd;
      },
      fdatasync: async (fd) => {
        if (!slowFds.has(fd)) return nodeFileOps.fdatasync(fd);
        slowStarted++;
        await holdPoolThread();
        await nodeFileOps.fdatasync(fd);
        slowSynced++;
      },
    };
    let slowStarted = 0, slowSynced = 0;
    const log = new FileConversationLog(dir, { fileOps: ops });
    const trigger = convId("pool trigger");
    const bulk = bulkIds.map((id) => log.append(id, [rec(1)]));
    // Once the flush's syncs are under way, the trigger comes.
    await until(() => slowStarted > 0);
    await log.append(trigger, [rec(1)], true);
    const syncedBefore = slowSynced;
    await Promise.all(bulk);
    expect(ns(dir, trigger)).toEqual([1]);
    // Before the gate 59-60 of the 60 slow syncs had returned first; with it 7-9 (those already in the pool).
    expect(syncedBefore).toBeLessThan(30);
    await log.close();
  });

  it("counts as urgent what sets an agent to work, a run's cursor and what the daemon publishes, nothing else", () => {
    const ev = { id: "e", pubkey: "p", created_at: 1, kind: 1, tags: [], content: "", sig: "s" };
    expect(isUrgent([{ t: "event", at: 1, ev, origin: "relay" }])).toBe(false);
    expect(isUrgent([{ t: "event", at: 1, ev, origin: "local" }])).toBe(true);
    expect(isUrgent([{ t: "run_pending", at: 1, agent: "a", trigger: "e" }])).toBe(true);
    expect(isUrgent([{ t: "cursor", at: 1, agent: "a", seq: 3 }])).toBe(true);
    expect(isUrgent([{ t: "read", at: 1, agent: "a", seq: 3 }])).toBe(false);
    expect(isUrgent([])).toBe(false);
  });
});
