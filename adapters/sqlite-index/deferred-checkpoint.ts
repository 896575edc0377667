// The index's thread checkpoints its WAL itself, once it has answered, instead of inside a COMMIT.
// SQLite's automatic checkpoint runs in the commit that takes the WAL past 1,000 pages: measured in
// the live path, 20-33 ms of a held batch's 4-15 ms commit (held-batch.ts), and the main thread
// waits for that commit's answer to call the records indexed. Here the answer goes first and the
// checkpoint follows, before the thread reads its next message.

import type Database from "better-sqlite3";

const NO_AUTOMATIC_CHECKPOINT = "wal_autocheckpoint = 0";
// PASSIVE: never waits for a reader; what a reader still needs is copied by a later checkpoint.
const CHECKPOINT = "wal_checkpoint(PASSIVE)";
/**
 * A quarter of the 1,000 pages SQLite would wait for (~1-2 KB of pages a record: messages,
 * recipients, words). A checkpoint syncs the WAL and the database file, megabytes at once, and
 * an urgent append's fdatasync (an agent's answer) that comes meanwhile waits for the disk: at
 * every 2,000 records, under 2,000 ev/s, checkpoints took 70 ms on average (up to 107) and held
 * 4-12 of 480 urgent appends over 20 ms (up to 58); at every 500, 27-31 ms (up to 41) and 2-5
 * (up to 43), with no ingest rate lost (docs/performance.md, session 30).
 */
export const CHECKPOINT_EVERY_RECORDS = 500;

export class DeferredCheckpoint {
  private since = 0;
  private scheduled = false;
  /** The last checkpoint's failure (the WAL then grows until one succeeds). */
  lastError: unknown;

  /** `busy`: a transaction is open (a held batch): the checkpoint waits for the next answer. */
  constructor(private readonly db: Database.Database, private readonly busy: () => boolean, private readonly every = CHECKPOINT_EVERY_RECORDS) {
    db.pragma(NO_AUTOMATIC_CHECKPOINT);
  }

  /** `records` were written. */
  wrote(records: number): void {
    this.since += records;
  }

  /** Before the connection closes (the thread retires): what was written since the last checkpoint. */
  beforeClose(): void {
    if (this.since > 0 && !this.busy()) this.run();
  }

  /** Called once an answer is posted: checkpoints before the next message, if enough was written. */
  afterAnswer(): void {
    if (this.scheduled || this.since < this.every) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.busy() && this.db.open) this.run();
    });
  }

  private run(): void {
    try {
      this.db.pragma(CHECKPOINT);
      this.since = 0;
    } catch (err) {
      this.lastError = err;
    }
  }
}
