// The open conversation files: a bounded LRU of file descriptors, so ten thousand conversations
// never exhaust the process's fds. Opening a file checks its tail, and repairs a torn one before
// anything is appended after it (a new line glued onto a torn one would corrupt the interior);
// damaged whole lines at its end are set aside the same way, and recorded as damage.

import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { CorruptLogError } from "./errors.js";
import type { FileOps } from "./file-ops.js";
import type { LogLayout } from "./layout.js";
import { linesOf } from "./intact-lines.js";
import type { Quarantine } from "./quarantine.js";
import { inspectTail, readExactly, type ReadAt } from "./tail.js";

export interface OpenLog {
  readonly id: string;
  readonly fd: number;
  readonly path: string;
  /** Bytes of whole, intact lines: appends go here, a failed append is cut back to here. */
  size: number;
  /** `n` of the last intact record (0 when none). */
  lastN: number;
  /** Created by this process; its directory entry is not yet known to be durable. */
  fresh: boolean;
  pins: number;
  /** Damaged lines cut from its end when it was opened, not yet told to a reader (takeSetAside). */
  setAside: number;
}

export class FileTable {
  // Map order is recency: the first entry is the least recently used.
  private readonly open = new Map<string, OpenLog>();
  // Sizes that files must be cut back to when next opened: a failed append whose own cut-back
  // failed too. Its records were refused, so none of them may reappear after a tail repair.
  private readonly owed = new Map<string, number>();
  /** Files being opened right now: they count against the capacity before they are in `open`. */
  private opening = 0;
  private dirMade: Promise<void> | undefined;

  constructor(
    private readonly layout: LogLayout,
    private readonly ops: FileOps,
    private readonly quarantine: Quarantine,
    private readonly capacity: number,
  ) {}

  /**
   * The open log of `id`, pinned until `release`; undefined when missing and not `create`.
   * Calls for different ids may run at once (a flush opens its files together). `ops`: the lane
   * its file calls take (pool-gate.ts), the table's own unless an urgent append opens it.
   */
  async acquire(id: string, create: boolean, ops: FileOps = this.ops): Promise<OpenLog | undefined> {
    let file = this.open.get(id);
    if (file) {
      this.open.delete(id);
    } else {
      this.opening++;
      try {
        await this.makeRoom(ops);
        file = await this.openLog(id, create, ops);
      } finally {
        this.opening--;
      }
      if (!file) return undefined;
    }
    this.open.set(id, file);
    file.pins++;
    return file;
  }

  /** Lines set aside when `file` was opened and not told to a reader yet; told once. */
  takeSetAside(file: OpenLog): number {
    const n = file.setAside;
    file.setAside = 0;
    return n;
  }

  release(file: OpenLog): void {
    file.pins--;
  }

  /** Closes and forgets `id` (before it is moved, or when its state on disk is unknown). */
  async drop(id: string, ops: FileOps = this.ops): Promise<void> {
    const file = this.open.get(id);
    if (!file) return;
    this.open.delete(id);
    await ops.close(file.fd);
  }

  /** Forgets `id`, and cuts its file back to `size` when it is next opened. */
  async dropAndCut(id: string, size: number): Promise<void> {
    this.owed.set(id, size);
    await this.drop(id);
  }

  async closeAll(): Promise<void> {
    const files = [...this.open.values()];
    this.open.clear();
    await Promise.all(files.map((f) => this.ops.close(f.fd)));
  }

  private async makeRoom(ops: FileOps): Promise<void> {
    for (const [id, file] of this.open) {
      if (this.open.size + this.opening <= this.capacity) return;
      if (file.pins === 0) await this.drop(id, ops);
    }
  }

  private async openLog(id: string, create: boolean, ops: FileOps): Promise<OpenLog | undefined> {
    const livePath = this.layout.logPath(id, false), archivedPath = this.layout.logPath(id, true);
    if (ops.openFirst) {
      // A lane that pays per call looks in both places and creates in one (thread-file-ops.ts).
      if (create) await this.ensureDir();
      const found = await ops.openFirst([livePath, archivedPath], create);
      if (!found) return undefined;
      if (found.created) return created(id, livePath, found.fd);
      return this.checked(id, found.index === 0 ? livePath : archivedPath, found.fd, ops);
    }
    // Both places are looked at together: each look is a trip to libuv's thread pool and back,
    // a turn of the event loop, and a new conversation's file is in neither (docs/performance.md,
    // "From a message to its agent"). The live log wins; the archived one is used only without it.
    const [live, archived] = await Promise.allSettled([tryOpen(ops, livePath), tryOpen(ops, archivedPath)] as const);
    const spare = async () => {
      if (archived.status === "fulfilled" && archived.value !== undefined) await ops.close(archived.value).catch(() => undefined);
    };
    if (live.status === "rejected") {
      await spare();
      throw live.reason;
    }
    if (live.value !== undefined) {
      await spare();
      return this.checked(id, livePath, live.value, ops);
    }
    if (archived.status === "rejected") throw archived.reason;
    if (archived.value !== undefined) return this.checked(id, archivedPath, archived.value, ops);
    if (!create) return undefined;
    await this.ensureDir();
    return created(id, livePath, await ops.open(livePath, true));
  }

  private async checked(id: string, path: string, fd: number, ops: FileOps): Promise<OpenLog> {
    try {
      const { size } = await ops.fstat(fd);
      const readAt: ReadAt = (buf, off, len, pos) => ops.read(fd, buf, off, len, pos);
      const verdict = await inspectTail(readAt, Math.min(size, this.owed.get(id) ?? size));
      if (!verdict.ok) {
        this.owed.delete(id);
        await ops.close(fd);
        const to = await this.quarantine.moveAside(id, path, dirname(path), verdict.detail);
        throw new CorruptLogError(id, verdict.detail, to);
      }
      let setAside = 0;
      if (verdict.goodSize < size) {
        const cut = Buffer.allocUnsafe(size - verdict.goodSize);
        await readExactly(readAt, cut, verdict.goodSize);
        const detail = `cut ${cut.length} bytes after byte ${verdict.goodSize}`;
        const lines = verdict.damaged ? linesOf(cut, verdict.goodSize, "after the last line that parses") : [];
        const damage = verdict.damaged
          ? await this.quarantine.keepDamaged(id, path, cut, lines, `${lines.length} lines at the end do not parse: ${detail}`)
          : undefined;
        if (!damage) await this.quarantine.keepTorn(id, cut, detail);
        await ops.ftruncate(fd, verdict.goodSize);
        await ops.fdatasync(fd);
        if (damage) this.quarantine.reportDamage(damage);
        setAside = lines.length;
      }
      this.owed.delete(id);
      return { id, fd, path, size: verdict.goodSize, lastN: verdict.lastN, fresh: false, pins: 0, setAside };
    } catch (e) {
      // The original failure is the one to report; a failing close on top of it adds nothing.
      if (!(e instanceof CorruptLogError)) await ops.close(fd).catch(() => undefined);
      throw e;
    }
  }

  private ensureDir(): Promise<void> {
    this.dirMade ??= (async () => {
      await mkdir(this.layout.conversations, { recursive: true, mode: 0o700 });
      await this.ops.syncDir(this.layout.dataDir);
    })().catch((e: unknown) => {
      this.dirMade = undefined;
      throw e;
    });
    return this.dirMade;
  }
}

async function tryOpen(ops: FileOps, path: string): Promise<number | undefined> {
  try {
    return await ops.open(path, false);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** A log file this process has just created: empty, its directory entry not yet synced. */
function created(id: string, path: string, fd: number): OpenLog {
  return { id, fd, path, size: 0, lastN: 0, fresh: true, pins: 0, setAside: 0 };
}
