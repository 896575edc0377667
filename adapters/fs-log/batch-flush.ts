// The flush of one batch of appends: every file of it written once and synced once, each
// file's appends resolved (or refused, their bytes cut back) only when its lines are durable, and
// a new file only once its directory entry is too. The writer (group-commit.ts) decides what goes
// in a batch and when; this is how a batch reaches the disk.

import { dirname } from "node:path";
import { InvalidRecordError, LogError, LogWriteError } from "./errors.js";
import type { FileOps } from "./file-ops.js";
import type { FileTable, OpenLog } from "./file-table.js";
import type { WriterStats } from "../../src/daemon-status.js";
import type { WritingNotice } from "../../src/ports.js";

export interface Pending {
  /**
   * The lines, joined by "\n", without the last newline, as UTF-8. Encoded at once: a string
   * of this size that waits for the flush is copied by every young-generation GC until then,
   * and a burst holds thousands of them; the bytes live outside the JS heap.
   */
  bytes: Buffer;
  firstN: number;
  lastN: number;
  records: number;
  /** The file's size after these lines, once written. */
  end: number;
  resolve: (end: number) => void;
  reject: (e: Error) => void;
  /** Told, once `end` is known, that these lines are being written (WritingNotice). */
  writing?: WritingNotice;
}

/** The appends of a flush, by file, each file's in order. */
export type Batch = Map<string, Pending[]>;
/** Files whose open (create) began before their flush did. */
export type Opening = Map<string, Promise<OpenLog | undefined>>;

interface Target {
  file: OpenLog;
  /** The lane of its flush's file calls. */
  ops: FileOps;
  accepted: Pending[];
  /** The file's size and last position before this flush: what a failure reverts to. */
  start: number;
  startN: number;
  /** Its accepted appends' lines, one buffer (encodeBatch). */
  buf: Buffer;
  error?: Error;
}

export class BatchFlusher {
  /** Files whose part of a flush under way is done (durable, or failed), its appends not settled yet (at the flush's end). */
  private readonly unsettled = new Map<string, Target>();

  /** `chunk`: files flushed together, at most the open-file budget so none is evicted mid-flush. */
  constructor(
    private readonly files: FileTable,
    private readonly chunk: number,
    private readonly counts: WriterStats,
  ) {}

  /**
   * Writes and syncs every file of `batch`, `chunk` files at a time, with `ops` (a lane of
   * pool-gate.ts); `opening`: files whose open has already begun (openEarly). `partDone(id)` is
   * told of each file whose part is done (durable, or failed) before the batch resolves.
   */
  async flush(batch: Batch, ops: FileOps, opening?: Opening, partDone?: (id: string) => void): Promise<void> {
    this.counts.flushes++;
    const ids = [...batch.keys()];
    for (let i = 0; i < ids.length; i += this.chunk) {
      const some = ids.slice(i, i + this.chunk);
      try {
        await this.flushFiles(some, batch, ops, opening, partDone);
      } catch (e) {
        // Not a write failure (those are per file): fail what is left rather than hang it.
        for (const id of some) for (const p of batch.get(id) ?? []) p.reject(asLogError(id, e));
      }
    }
  }

  private async flushFiles(ids: string[], batch: Batch, ops: FileOps, opening?: Opening, partDone?: (id: string) => void): Promise<void> {
    // Opened together: one after the other, creating 200 new files took longer than writing
    // and syncing them.
    const opened = await Promise.all(ids.map(async (id): Promise<Target | undefined> => {
      const pending = batch.get(id) as Pending[];
      let file: OpenLog;
      try {
        file = (await (opening?.get(id) ?? this.files.acquire(id, true, ops))) as OpenLog;
      } catch (e) {
        for (const p of pending) p.reject(asLogError(id, e));
        return undefined;
      }
      const accepted = this.admit(file, pending);
      return { file, ops, accepted, start: file.size, startN: file.lastN, buf: encodeBatch(accepted, file.size) };
    }));
    const targets = opened.filter((t): t is Target => t !== undefined);
    // Where each append's lines end is known now: whoever derives from them may start (the index
    // applies them while they are written and synced, and commits once they are durable).
    for (const t of targets) for (const p of t.accepted) p.writing?.(p.end, p.bytes);
    // New files' directory entries are synced alongside their data, not after it: both are owed
    // before anything resolves, in either order, and one after the other they cost a trigger
    // that opens a conversation two syncs instead of one. The appends resolve together at the
    // end (one batch for the index, not one per file), except a file an urgent append waits for
    // (settleEarly): its part resolves as soon as it is done, and the urgent append goes express.
    const entries = this.syncNewEntries(targets, ops);
    // Every file's part is waited for, even if one throws: none may be left unsettled, or found
    // in `unsettled` by a later flush.
    const parts = await Promise.allSettled(targets.map(async (t) => {
      await this.writeAndSync(t);
      if (t.file.fresh && !t.error && t.accepted.length > 0) {
        const e = (await entries).get(dirname(t.file.path));
        if (e === undefined) t.file.fresh = false;
        else await this.fail(t, e);
      }
      this.unsettled.set(t.file.id, t);
      partDone?.(t.file.id);
    }));
    for (const t of targets) {
      if (this.unsettled.get(t.file.id) !== t) continue;
      this.unsettled.delete(t.file.id);
      this.settle(t);
    }
    const thrown = parts.find((p): p is PromiseRejectedResult => p.status === "rejected");
    if (thrown) throw thrown.reason;
  }

  /** Resolves now the appends of `id`'s part of a flush under way, if that part is done; false if not. */
  settleEarly(id: string): boolean {
    const t = this.unsettled.get(id);
    if (!t) return false;
    this.unsettled.delete(id);
    this.settle(t);
    return true;
  }

  // Positions only grow: an append whose records do not follow the file's last one is refused.
  private admit(file: OpenLog, pending: Pending[]): Pending[] {
    let last = file.lastN;
    return pending.filter((p) => {
      if (p.firstN > last) {
        last = p.lastN;
        return true;
      }
      p.reject(new InvalidRecordError(file.id, `n=${p.firstN} does not follow n=${last} in the log`));
      return false;
    });
  }

  private async writeAndSync(t: Target): Promise<void> {
    if (t.accepted.length === 0) return;
    const { file, start, buf } = t;
    try {
      if (t.ops.writeAndSync) await t.ops.writeAndSync(file.fd, buf, start);
      else await writeThenSync(t.ops, file.fd, buf, start);
      this.counts.syncs++;
      this.counts.bytes += buf.length;
      file.size = start + buf.length;
      file.lastN = (t.accepted.at(-1) as Pending).lastN;
    } catch (e) {
      await this.fail(t, e);
    }
  }

  private async fail(t: Target, cause: unknown): Promise<void> {
    t.error = new LogWriteError(t.file.id, cause);
    t.file.size = t.start;
    t.file.lastN = t.startN;
    await this.cutBack(t.file, t.start, t.ops);
  }

  // Leave no half line behind: cut back to the last good size. If even that fails, forget the
  // file and cut it when it is next opened, before anything else is appended.
  private async cutBack(file: OpenLog, size: number, ops: FileOps): Promise<void> {
    try {
      await ops.ftruncate(file.fd, size);
      await ops.fdatasync(file.fd);
    } catch {
      // The disk is failing: a close error is one more symptom, and the cut is owed anyway.
      await this.files.dropAndCut(file.id, size).catch(() => undefined);
    }
  }

  // A file created in this flush exists after a power loss only once its directory is synced.
  // Resolves with the directories whose sync failed, and why.
  private async syncNewEntries(targets: Target[], ops: FileOps): Promise<Map<string, unknown>> {
    const dirs = new Set(targets.filter((t) => t.file.fresh && t.accepted.length).map((t) => dirname(t.file.path)));
    const failed = new Map<string, unknown>();
    await Promise.all([...dirs].map(async (dir) => {
      try {
        await ops.syncDir(dir);
        this.counts.syncs++;
      } catch (e) {
        failed.set(dir, e);
      }
    }));
    return failed;
  }

  private settle(t: Target): void {
    this.files.release(t.file);
    for (const p of t.accepted) {
      if (t.error) {
        p.reject(t.error);
      } else {
        this.counts.appends++;
        this.counts.records += p.records;
        p.resolve(p.end);
      }
    }
  }
}

async function writeThenSync(ops: FileOps, fd: number, buf: Buffer, start: number): Promise<void> {
  for (let off = 0; off < buf.length; ) {
    const wrote = await ops.write(fd, buf, off, buf.length - off, start + off);
    if (wrote <= 0) throw new Error(`write returned ${wrote}`);
    off += wrote;
  }
  await ops.fdatasync(fd);
}

// One buffer for all the lines of a file (one write), each append's bytes and a newline.
// Notes where each append's lines end, counting from the file's size `start`.
function encodeBatch(accepted: readonly Pending[], start: number): Buffer {
  let size = 0;
  for (const p of accepted) size += p.bytes.length + 1;
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  for (const p of accepted) {
    off += p.bytes.copy(buf, off);
    buf[off++] = 0x0a;
    p.end = start + off;
  }
  return buf;
}

function asLogError(id: string, e: unknown): Error {
  return e instanceof LogError ? e : new LogWriteError(id, e);
}
