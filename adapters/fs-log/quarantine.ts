// Damaged data is set aside, never deleted: torn tails are saved before they are cut off, damaged
// lines before the log is rewritten without them, files that hold no intact line are moved whole.
// Every such event is reported and kept in a list for the status API; damage (lines set aside,
// files moved whole) is also recorded durably (damage-records.ts) until an operator clears it.
// A torn tail is not damage: a crash mid-append leaves one, and its record was never acknowledged.

import { mkdir, open, rename, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { writeDamageRecord } from "./damage-records.js";
import type { FileOps } from "./file-ops.js";
import type { LogLayout } from "./layout.js";
import type { DamageRecord, SetAsideLine } from "../../src/daemon-status.js";

export interface LogProblem {
  /** Conversation id; for a stray file in the log directories, its file name. */
  id: string;
  kind: "torn_tail" | "damaged_lines" | "quarantined" | "stray_file";
  detail: string;
  /** Where the set-aside bytes are now (for a stray file: where it lies, untouched). */
  path: string;
  /** The durable record of damage (damaged_lines, quarantined). */
  record?: DamageRecord;
}

export type ProblemListener = (problem: LogProblem) => void;

export class Quarantine {
  private readonly seen: LogProblem[] = [];
  private made: Promise<void> | undefined;

  constructor(
    private readonly layout: LogLayout,
    private readonly ops: FileOps,
    private readonly now: () => number,
    private readonly onProblem: ProblemListener | undefined,
  ) {}

  problems(): LogProblem[] {
    return [...this.seen];
  }

  report(problem: LogProblem): void {
    this.seen.push(problem);
    this.onProblem?.(problem);
  }

  /** Saves the torn tail of a log durably; the caller cuts it off only after this resolves. */
  async keepTorn(id: string, bytes: Buffer, detail: string): Promise<string> {
    await this.ensureDir();
    const path = await this.freeName(`${id}.torn-${this.now()}`);
    const fh = await open(path, "wx", 0o600);
    try {
      await fh.writeFile(bytes);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await this.ops.syncDir(this.layout.quarantine);
    this.report({ id, kind: "torn_tail", detail, path });
    return path;
  }

  /**
   * Saves the damaged lines of a log (their bytes, each followed by a newline) and the durable
   * record of the damage, both synced; the caller rewrites the log only after this resolves, and
   * reports the problem (`reportDamage`) once the log is whole again.
   */
  async keepDamaged(id: string, log: string, bytes: Buffer, lines: SetAsideLine[], detail: string): Promise<DamageRecord> {
    await this.ensureDir();
    const at = this.now();
    const path = await this.freeName(`${id}.damaged-${at}`);
    const fh = await open(path, "wx", 0o600);
    try {
      await fh.writeFile(bytes);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    const record = this.record(id, "damaged_lines", log, path, at, detail, lines);
    await this.ops.syncDir(this.layout.quarantine);
    return record;
  }

  reportDamage(record: DamageRecord): void {
    this.report({ id: record.conversationId, kind: "damaged_lines", detail: record.detail, path: join(this.layout.dataDir, record.savedTo), record });
  }

  /** Moves a whole log into quarantine. */
  async moveAside(id: string, from: string, fromDir: string, detail: string): Promise<string> {
    await this.ensureDir();
    const at = this.now();
    const path = await this.freeName(`${id}.jsonl.${at}`);
    await rename(from, path);
    const record = this.record(id, "quarantined", from, path, at, `${detail}: the whole log was moved aside`, []);
    await this.ops.syncDir(this.layout.quarantine);
    await this.ops.syncDir(fromDir);
    this.report({ id, kind: "quarantined", detail, path, record });
    return path;
  }

  private record(id: string, kind: DamageRecord["kind"], log: string, saved: string, at: number, detail: string, lines: SetAsideLine[]): DamageRecord {
    const rel = (p: string) => relative(this.layout.dataDir, p);
    return writeDamageRecord(this.layout.quarantine, {
      id: `${id.slice(0, 8)}-${at}`, kind, conversationId: id, log: rel(log), at, detail, lines, savedTo: rel(saved),
    });
  }

  private ensureDir(): Promise<void> {
    this.made ??= (async () => {
      await mkdir(this.layout.quarantine, { recursive: true, mode: 0o700 });
      await this.ops.syncDir(this.layout.dataDir);
    })().catch((e: unknown) => {
      this.made = undefined; // a later problem may find the disk writable again
      throw e;
    });
    return this.made;
  }

  // Two problems within one millisecond must not overwrite each other's evidence.
  private async freeName(base: string): Promise<string> {
    for (let k = 0; ; k++) {
      const path = join(this.layout.quarantine, k === 0 ? base : `${base}-${k}`);
      if (!(await exists(path))) return path;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}
