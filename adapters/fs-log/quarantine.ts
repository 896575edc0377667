// Damaged data is set aside, never deleted: torn tails are saved before they are cut off, corrupt
// files are moved whole. Every such event is reported and kept in a list for the status API.

import { mkdir, open, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileOps } from "./file-ops.js";
import type { LogLayout } from "./layout.js";

export interface LogProblem {
  /** Conversation id; for a stray file in the log directories, its file name. */
  id: string;
  kind: "torn_tail" | "quarantined" | "stray_file";
  detail: string;
  /** Where the set-aside bytes are now (for a stray file: where it lies, untouched). */
  path: string;
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

  /** Moves a whole log into quarantine. */
  async moveAside(id: string, from: string, fromDir: string, detail: string): Promise<string> {
    await this.ensureDir();
    const path = await this.freeName(`${id}.jsonl.${this.now()}`);
    await rename(from, path);
    await this.ops.syncDir(this.layout.quarantine);
    await this.ops.syncDir(fromDir);
    this.report({ id, kind: "quarantined", detail, path });
    return path;
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
