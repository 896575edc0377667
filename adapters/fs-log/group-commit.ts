// Group commit. Appends queue up while a flush runs; the next flush writes every pending line
// of every file (one write per file) and then syncs each touched file once. An append resolves
// only when its lines are on disk, with the file's size after them, so callers may pipeline
// thousands of appends and still acknowledge each event only once it is durable, at close to
// the disk's own rate.
//
// Everything that touches the files runs on one serial queue, one stage at a time: flushes,
// groups of opens for reading and the exclusive operations (tail repair, quarantine, archive
// moves) never overlap. Stages run in arrival order, except that a group of reads may go ahead
// of the appends waiting for the next flush when none of them is to a file it reads
// (exclusiveFor), and that an urgent append (src/log-urgency.ts: someone waits on it) is flushed
// at once, beside a flush or reads of other files or nothing, rather than behind them (express); one
// to a file in a flush under way goes as soon as that file's part of it is durable, ahead of the
// next batch; one held by an exclusive operation goes right after it. Ordinary appends' file
// calls pass a gate to libuv's pool (pool-gate.ts), urgent ones run on a thread of their own
// (thread-file-ops.ts). How one batch is written, synced and resolved is batch-flush.ts.

import type { LogRecord } from "../../src/records.js";
import { BatchFlusher, type Batch, type Opening, type Pending } from "./batch-flush.js";
import { InvalidRecordError } from "./errors.js";
import type { FileOps } from "./file-ops.js";
import type { FileTable, OpenLog } from "./file-table.js";
import { LineSlab } from "./line-slab.js";
import { encodeRecords } from "./record-line.js";
import type { WriterStats } from "../../src/daemon-status.js";
import type { EventJsonSource, WritingNotice } from "../../src/ports.js";

// `reads`: opens of files to read, by file, run at once (see exclusiveFor); `passed`: a group
// of reads went ahead of this batch; `opening`: its new files, opened before its turn (openEarly).
type Stage =
  | { batch: Batch; passed?: boolean; opening?: Opening }
  | { op: () => Promise<void> }
  | { reads: Map<string, () => Promise<void>> };

export class GroupCommitWriter {
  private readonly queue: Stage[] = [];
  private running = false;
  /** A stage is under way (running is set earlier: from the kick that schedules the drain). */
  private inStage = false;
  private readonly counts: WriterStats = { appends: 0, records: 0, flushes: 0, syncs: 0, bytes: 0 };
  /** The stage under way; an express flush runs only beside a flush. */
  private current: Stage | undefined;
  /** The express flush gathering appends this turn of the event loop (started on the next). */
  private gathering: { batch: Batch; opening: Opening } | undefined;
  /** Files with an urgent append waiting because the flush under way holds them: express after their part. */
  private readonly afterCurrent = new Set<string>();
  /** The same for files in an express flush under way: express again once it is done. */
  private readonly afterExpress = new Set<string>();
  /** Files whose part of the flush under way was resolved early, for an urgent append: it need not wait. */
  private readonly doneInCurrent = new Set<string>();
  /** Files with an urgent append waiting in the last batch for an exclusive stage or a read of theirs: express once passable. */
  private readonly held = new Set<string>();
  /** Files in express flushes, gathering or running: nothing else touches them meanwhile. */
  private readonly expressFiles = new Set<string>();
  /** Express flushes not finished: the next stage waits for them. */
  private readonly expressRuns = new Set<Promise<void>>();

  private readonly flusher: BatchFlusher;
  private readonly slab = new LineSlab();

  /**
   * `chunk`: files flushed together, at most the open-file budget so none is evicted mid-flush.
   * `lanes`: the file calls of flushes and of express flushes (pool-gate.ts: the latter go first).
   */
  constructor(
    private readonly files: FileTable,
    private readonly lanes: { bulk: FileOps; urgent: FileOps },
    private readonly chunk: number,
    /** Events' JSON serialized elsewhere (by their verifier), written as it is. */
    private readonly eventJson?: EventJsonSource,
  ) {
    this.flusher = new BatchFlusher(files, chunk, this.counts);
  }

  stats(): WriterStats {
    return { ...this.counts };
  }

  append(id: string, records: readonly LogRecord[], urgent = false): Promise<number> {
    if (records.length === 0) return this.exclusive(() => this.sizeOf(id));
    return this.enqueue(id, records, urgent, (_bytes, resolve) => resolve);
  }

  /**
   * As append, resolving also with the lines written (ConversationLog.appendWithLines); `writing`
   * is told when they are being written, with where they will end (none are for no records).
   */
  appendWithLines(id: string, records: readonly LogRecord[], urgent = false, writing?: WritingNotice): Promise<{ end: number; lines: Uint8Array }> {
    if (records.length === 0) return this.exclusive(async () => ({ end: await this.sizeOf(id), lines: new Uint8Array(0) }));
    return this.enqueue(id, records, urgent, (lines, resolve) => (end) => resolve({ end, lines }), writing);
  }

  // `settle`: what the append resolves with once its lines are durable at `end` (the plain
  // append passes its resolve through: no closure per append).
  private enqueue<T>(
    id: string, records: readonly LogRecord[], urgent: boolean,
    settle: (bytes: Buffer, resolve: (value: T) => void) => (end: number) => void,
    writing?: WritingNotice,
  ): Promise<T> {
    let encoded: ReturnType<typeof encodeRecords>;
    try {
      encoded = encodeRecords(records, this.eventJson);
    } catch (e) {
      // JSON.stringify throws on a BigInt or a cycle: the caller's bug, reported as such.
      return Promise.reject(new InvalidRecordError(id, e instanceof Error ? e.message : String(e)));
    }
    if (typeof encoded === "string") return Promise.reject(new InvalidRecordError(id, encoded));
    return new Promise((resolve, reject) => {
      const bytes = this.slab.encode(encoded.parts);
      const entry: Pending = { bytes, firstN: encoded.firstN, lastN: encoded.lastN, records: records.length, end: 0, resolve: settle(bytes, resolve), reject, writing };
      // A file gathering for an express flush takes every append to it: they stay in order.
      const express = this.gathering?.batch.get(id);
      if (express) return void express.push(entry);
      if (urgent && this.express(id, entry)) return;
      let stage = this.queue.at(-1);
      if (!stage || !("batch" in stage)) {
        stage = { batch: new Map() };
        this.queue.push(stage);
      }
      const pending = stage.batch.get(id);
      if (pending) {
        pending.push(entry);
      } else {
        stage.batch.set(id, [entry]);
        if (encoded.firstN === 1) this.openEarly(stage, id);
      }
      this.kick();
    });
  }

  // Nothing to write: the size after "these" records is the file's size as it is.
  private async sizeOf(id: string): Promise<number> {
    const file = await this.files.acquire(id, false);
    if (!file) return 0;
    this.files.release(file);
    return file.size;
  }

  /** Runs `fn` alone, after everything queued before it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op: () => fn().then(resolve, reject) });
      this.kick();
    });
  }

  /**
   * Runs `fn` (opening file `id` to read it) after everything queued before it that touches
   * `id`, together with other such reads: it joins the group of reads waiting at the end of the
   * queue, or just before the appends waiting for the next flush when none of those is to `id`.
   * A catch-up loads ~200 stored conversations at once; one by one, each behind the next flush of
   * up to 200 other files, their opens took ~1.4 s while the events they held back piled up.
   * Appends to `id` made before the call stay before it and those made after it come after: the
   * reader sees the file as the calls ordered it.
   */
  exclusiveFor<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.readGroupFor(id).set(id, () => fn().then(resolve, reject));
      this.kick();
    });
  }

  // At most `chunk` files in a group, and one read of a file per group. The appends waiting for
  // the next flush are passed by one group at most: a stream of reads must not hold them back.
  private readGroupFor(id: string): Map<string, () => Promise<void>> {
    const last = this.queue.at(-1);
    const waiting = last && "batch" in last && !last.batch.has(id) ? last : undefined;
    const at = waiting ? this.queue.length - 1 : this.queue.length;
    const before = this.queue[at - 1];
    if (before && "reads" in before && !before.reads.has(id) && before.reads.size < this.chunk) return before.reads;
    const group: Stage = { reads: new Map() };
    if (waiting && !waiting.passed) {
      waiting.passed = true;
      this.queue.splice(at, 0, group);
    } else {
      this.queue.push(group);
    }
    return group.reads;
  }

  /**
   * Starts opening (creating) the file of a conversation's first records at once, while the
   * events that go with them are still being staged, rather than when their flush begins: a
   * burst that starts 200 conversations spent half its flush, 116-156 ms, opening and creating
   * their files, with the main thread idle. Only while nothing else runs on the files (this batch is the first stage and none is
   * under way), so the open happens where the flush would have made it, only sooner; and only in
   * the batch's first chunk of files, which the flush holds open together anyway.
   */
  private openEarly(stage: Extract<Stage, { batch: unknown }>, id: string): void {
    if (this.inStage || this.queue[0] !== stage || stage.batch.size > this.chunk) return;
    const opening = (stage.opening ??= new Map());
    const file = this.files.acquire(id, true);
    // Awaited, and its failure handled, by the flush (flushFiles).
    file.catch(() => undefined);
    opening.set(id, file);
  }

  /**
   * Flushes `id` at once, beside the flush under way or when none runs, when nothing else touches
   * it: a trigger's records waited up to two flushes of every other conversation (50-250 ms each
   * under load, seconds under 2,000 ev/s) before its agent could start, though its own write and
   * sync take a few milliseconds. Beside a group of reads of other files too; never beside an
   * exclusive operation or a read of `id`, after which it goes express at once (held), and
   * only when `id` is in no stage queued, except for appends waiting in the last batch: those
   * move along with it, ahead of this one (with the new file that batch is opening early). When
   * the flush under way holds `id`, the append waits in the last batch and goes express as soon
   * as `id`'s part of that flush is durable (expressWaiting), not when the slowest of its files is,
   * nor behind the whole next batch (a flush of every conversation, under load). Each file's appends
   * keep their order; the next stage waits until the express flushes are done (drain), so one
   * file is never in two flushes at once.
   */
  private express(id: string, entry: Pending): boolean {
    const cur = this.current;
    if ((cur && "reads" in cur && cur.reads.has(id)) || (cur && "op" in cur) || !this.passable(id)) {
      // After that stage (or the one in its way), not behind the next batch: a flush of every
      // other conversation under load, which once held a trigger for ~1 s.
      this.held.add(id);
      return false;
    }
    if (this.expressFiles.has(id)) {
      this.afterExpress.add(id);
      return false;
    }
    if (cur && "batch" in cur && cur.batch.has(id) && !this.doneInCurrent.has(id)) {
      if (!this.flusher.settleEarly(id)) {
        this.afterCurrent.add(id);
        return false;
      }
      this.doneInCurrent.add(id);
    }
    this.toExpress(id, entry);
    return true;
  }

  /** Urgent appends held back by the flush under way, express now if nothing else holds their files. */
  private expressWaiting(ids: Iterable<string>): void {
    const last = this.queue.at(-1);
    for (const id of ids) {
      if (last && "batch" in last && last.batch.has(id) && !this.expressFiles.has(id) && this.passable(id)) this.toExpress(id);
    }
  }

  // No exclusive operation queued, no read of `id` queued, and `id` in no batch but the last.
  private passable(id: string): boolean {
    const last = this.queue.at(-1);
    for (const s of this.queue) {
      if ("op" in s || ("reads" in s && s.reads.has(id))) return false;
      if ("batch" in s && s.batch.has(id) && s !== last) return false;
    }
    return true;
  }

  private toExpress(id: string, entry?: Pending): void {
    const last = this.queue.at(-1);
    const waiting = last && "batch" in last ? last : undefined;
    const earlier = waiting?.batch.get(id) ?? [];
    const opening = waiting?.opening?.get(id);
    waiting?.batch.delete(id);
    waiting?.opening?.delete(id);
    if (waiting && waiting.batch.size === 0) this.queue.pop();
    if (!this.gathering) {
      const gathering = { batch: new Map<string, Pending[]>(), opening: new Map<string, Promise<OpenLog | undefined>>() };
      this.gathering = gathering;
      // Started once the code that issued it yields (a microtask), so urgent appends issued
      // together (an event and the runs it starts) share the flush; not a turn of the event loop
      // later, as kick waits: under 2,000 ev/s that turn took 50-70 ms.
      const run: Promise<void> = Promise.resolve()
        .then(() => {
          this.gathering = undefined;
          return this.flusher.flush(gathering.batch, this.lanes.urgent, gathering.opening);
        })
        .finally(() => {
          const next: string[] = [];
          for (const f of gathering.batch.keys()) {
            this.expressFiles.delete(f);
            if (this.afterExpress.delete(f)) next.push(f);
          }
          this.expressRuns.delete(run);
          // Added to expressRuns before the drain, which waits for this run, goes on.
          this.expressWaiting(next);
        });
      this.expressRuns.add(run);
    }
    this.gathering.batch.set(id, entry ? [...earlier, entry] : earlier);
    if (opening) this.gathering.opening.set(id, opening);
    this.expressFiles.add(id);
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // Wait one turn of the event loop, so appends issued together share the first flush.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    for (;;) {
      while (this.expressRuns.size > 0) await Promise.all([...this.expressRuns]);
      const stage = this.queue.shift();
      if (!stage) break;
      this.inStage = true;
      this.current = stage;
      if ("op" in stage) await stage.op();
      else if ("reads" in stage) await Promise.all([...stage.reads.values()].map((open) => open()));
      else await this.flusher.flush(stage.batch, this.lanes.bulk, stage.opening, (id) => this.partDone(id));
      this.current = undefined;
      this.inStage = false;
      // Their file's part of the flush failed before its settle; or held by an exclusive stage
      // or a read (those still held wait for the next stage's end, unless their batch has begun).
      this.expressWaiting([...this.afterCurrent, ...this.held]);
      this.afterCurrent.clear();
      const last = this.queue.at(-1);
      for (const id of this.held) if (this.expressFiles.has(id) || !(last && "batch" in last && last.batch.has(id))) this.held.delete(id);
      this.doneInCurrent.clear();
    }
    this.running = false;
  }

  // A file of the flush under way is done: an urgent append waiting for it goes express now.
  private partDone(id: string): void {
    if (!this.afterCurrent.delete(id)) return;
    this.flusher.settleEarly(id);
    this.doneInCurrent.add(id);
    this.expressWaiting([id]);
  }
}
