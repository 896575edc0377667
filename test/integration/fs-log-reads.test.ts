// Reads against the group-commit queue: opening a log to read it waits only for what was queued
// before it on that same file, and reads queued together open their files at once.

import { describe, expect, it } from "vitest";
import { FileConversationLog, LogClosedError } from "../../adapters/fs-log/index.js";
import { nodeFileOps, type FileOps } from "../../adapters/fs-log/file-ops.js";
import { convId, countingOps, rec, recs, tempDir } from "./fixtures/fs-log-fixtures.js";

/**
 * FileOps whose fdatasync can be held (a flush then stays in progress until the test lets it
 * go), and whose opens of one path can be held (a read's open then stays in progress).
 */
function heldSyncs(base: FileOps = nodeFileOps) {
  let held = false;
  const waiting: (() => void)[] = [];
  let heldPath: string | undefined;
  let opensWaiting = 0;
  let openGate: Promise<void> = Promise.resolve();
  let releaseOpen: () => void = () => undefined;
  const ops: FileOps = {
    ...base,
    fdatasync: async (fd) => {
      if (held) await new Promise<void>((r) => waiting.push(r));
      return base.fdatasync(fd);
    },
    open: async (path, create) => {
      if (heldPath !== undefined && path.includes(heldPath)) {
        opensWaiting++;
        await openGate;
        opensWaiting--;
      }
      return base.open(path, create);
    },
  };
  return {
    ops,
    holdOpens: (pathPart: string) => {
      heldPath = pathPart;
      openGate = new Promise((r) => (releaseOpen = r));
    },
    releaseOpens: () => releaseOpen(),
    opensWaiting: () => opensWaiting,
    hold: () => void (held = true),
    /** Lets the syncs waiting now go on; later ones still wait while held. */
    releaseWaiting: () => waiting.splice(0).forEach((go) => go()),
    releaseAll: () => {
      held = false;
      waiting.splice(0).forEach((go) => go());
    },
    waitingCount: () => waiting.length,
  };
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error("condition not reached");
};

/** `p`, or a failure naming `what` after `ms`. */
const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);

/** Tracks whether a promise has settled, without awaiting it. */
function watch<T>(p: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let done = false;
  const promise = p.finally(() => (done = true));
  return { settled: () => done, promise };
}

/**
 * A log over held-sync FileOps with `before` appended (records 1..count per file), then a flush
 * of `flushing` started and held in its fsync: the flush in progress that later calls queue behind.
 */
async function logWithHeldFlush(before: Record<string, number>, flushing: string) {
  const syncs = heldSyncs();
  const log = new FileConversationLog(tempDir(), { fileOps: syncs.ops });
  for (const [id, count] of Object.entries(before)) await log.append(id, recs(1, count));
  syncs.hold();
  const first = watch(log.append(flushing, [rec(1)]));
  await until(() => syncs.waitingCount() === 1);
  return { syncs, log, first };
}

describe("FileConversationLog: reads and the flush queue", () => {
  it("a read goes ahead of other files' appends waiting for the next flush, and after its own file's", async () => {
    const [x, y, z, w] = ["x", "y", "z", "w"].map(convId) as [string, string, string, string];
    const { syncs, log, first } = await logWithHeldFlush({ [x]: 3, [y]: 2 }, z);
    // These wait for the next flush; the reads are queued after them.
    const other = watch(log.append(w, [rec(1)]));
    const own = watch(log.append(x, [rec(4)]));
    const readY = watch(log.read(y));
    const readX = watch(log.read(x));

    syncs.releaseWaiting(); // z's flush ends; the next flush will be held in its turn
    const yRecords = await within(readY.promise, 5_000, "the read of y, while the next flush is held");
    expect(yRecords.map((r) => r.n)).toEqual([1, 2]);
    await first.promise;
    await until(() => syncs.waitingCount() > 0); // the flush of w and x is in progress
    expect(other.settled() || own.settled() || readX.settled()).toBe(false);

    syncs.releaseAll();
    expect((await readX.promise).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    await Promise.all([other.promise, own.promise]);
    await log.close();
  });

  it("the appends waiting for the next flush are passed by one group of reads at most", async () => {
    const [y, v, z, w] = ["y", "v", "z", "w"].map(convId) as [string, string, string, string];
    const { syncs, log, first } = await logWithHeldFlush({ [y]: 2, [v]: 3 }, z);
    const waiting = watch(log.append(w, [rec(1)]));
    syncs.holdOpens(y);
    const readY = watch(log.read(y)); // a group of reads ahead of w's append
    syncs.releaseWaiting();
    await first.promise;
    await until(() => syncs.opensWaiting() === 1);
    // y's group is opening its file now; a read asked for meanwhile goes after w's append.
    const readV = watch(log.read(v));
    syncs.releaseOpens();
    expect((await within(readY.promise, 5_000, "the read of y")).map((r) => r.n)).toEqual([1, 2]);
    await until(() => syncs.waitingCount() > 0); // the flush of w is in progress
    await new Promise((r) => setTimeout(r, 20));
    expect(readV.settled() || waiting.settled()).toBe(false);

    syncs.releaseAll();
    expect((await readV.promise).map((r) => r.n)).toEqual([1, 2, 3]);
    await waiting.promise;
    await log.close();
  });

  it("reads queued together open their files at once, within maxOpenFiles and maxConcurrentReads", async () => {
    const counting = countingOps();
    let opening = 0;
    let mostAtOnce = 0;
    const ops: FileOps = {
      ...counting.ops,
      open: async (path, create) => {
        mostAtOnce = Math.max(mostAtOnce, ++opening);
        try {
          return await counting.ops.open(path, create);
        } finally {
          opening--;
        }
      },
    };
    const dir = tempDir();
    const ids = Array.from({ length: 20 }, (_, i) => convId(`together ${i}`));
    const writer = new FileConversationLog(dir);
    await Promise.all(ids.map((id, i) => writer.append(id, recs(1, i + 1))));
    await writer.close();

    const log = new FileConversationLog(dir, { fileOps: ops, maxOpenFiles: 8, maxConcurrentReads: 4 });
    const read = await Promise.all(ids.map((id) => log.read(id)));
    read.forEach((records, i) => expect(records.map((r) => r.n)).toEqual(Array.from({ length: i + 1 }, (_, k) => k + 1)));
    expect(mostAtOnce).toBeGreaterThan(1);
    // The file table's descriptors, plus one per read in progress.
    expect(counting.maxOpen).toBeLessThanOrEqual(8 + 4);
    await log.close();
    expect(counting.open).toBe(0);
  });

  it("a read still waiting for its turn when the log closes is refused, and reopens nothing", async () => {
    const counting = countingOps();
    const log = new FileConversationLog(tempDir(), { fileOps: counting.ops, maxConcurrentReads: 1 });
    const [a, b] = ["a", "b"].map(convId) as [string, string];
    await log.append(a, recs(1, 2));
    await log.append(b, recs(1, 3));
    const first = log.read(a); // running: asked before the close, served
    const waiting = log.read(b); // waits for the first: its turn comes after the close
    const closed = log.close();
    expect((await first).map((r) => r.n)).toEqual([1, 2]);
    await expect(waiting).rejects.toBeInstanceOf(LogClosedError);
    await closed;
    expect(counting.open).toBe(0);
  });

  it("two reads of one file queued together both see the whole file", async () => {
    const log = new FileConversationLog(tempDir());
    const id = convId("twice");
    await log.append(id, recs(1, 5));
    const [a, b] = await Promise.all([log.read(id), log.read(id)]);
    expect(a.map((r) => r.n)).toEqual([1, 2, 3, 4, 5]);
    expect(b).toStrictEqual(a);
    await log.close();
  });
});
