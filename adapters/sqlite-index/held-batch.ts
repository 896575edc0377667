// A batch applied in a transaction left open until its records are durable in the log (the
// index's invariant: nothing is committed before the log holds it). The index's thread applies a
// flush's records while the log writes and syncs them, and commits the moment they are durable,
// rather than starting on them only then: the index's last batch of a burst no longer trails the
// last flush by its whole apply time. A crash or a failed flush before the commit leaves nothing
// behind: SQLite drops an uncommitted transaction. See daemon/engine/store/index-feeder.ts.

import type Database from "better-sqlite3";
import type { IndexItem } from "../../src/ports.js";

// IMMEDIATE: the write lock is taken at once, so COMMIT cannot meet another writer.
const BEGIN = "BEGIN IMMEDIATE";
const COMMIT = "COMMIT";
const ROLLBACK = "ROLLBACK";

export class HeldBatchError extends Error {
  override name = "HeldBatchError";
}

export class HeldBatch {
  private readonly begin;
  private readonly commitStmt;
  private readonly rollbackStmt;
  private open = false;

  /** `applyItems`: the batch's writes, run inside the transaction this opens. */
  constructor(private readonly db: Database.Database, private readonly applyItems: (items: readonly IndexItem[]) => void) {
    this.begin = db.prepare(BEGIN);
    this.commitStmt = db.prepare(COMMIT);
    this.rollbackStmt = db.prepare(ROLLBACK);
  }

  get holding(): boolean {
    return this.open;
  }

  /** Opens the transaction and applies `items` in it; on failure nothing is left of them. */
  hold(items: readonly IndexItem[]): void {
    if (this.open) throw new HeldBatchError("a batch is already held");
    this.begin.run();
    this.open = true;
    try {
      this.applyItems(items);
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  commit(): void {
    if (!this.open) throw new HeldBatchError("no batch is held: it was lost before its commit");
    this.open = false;
    try {
      this.commitStmt.run();
    } catch (err) {
      // A COMMIT that fails on an I/O error may leave the transaction open: end it.
      if (this.db.inTransaction) this.rollbackStmt.run();
      throw err;
    }
  }

  /** Drops the batch held, if one is (idempotent). */
  rollback(): void {
    if (!this.open) return;
    this.open = false;
    if (this.db.inTransaction) this.rollbackStmt.run();
  }
}
