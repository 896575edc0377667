// ConversationLog over a data directory: one JSON-lines file per conversation under
// `<dataDir>/conversations/`, archived ones under `conversations/archive/`, damaged data set
// aside under `<dataDir>/quarantine/`. See group-commit.ts for durability, file-table.ts for
// tail repair, reader.ts for what makes a file corrupt.

import { readdirSync, statSync } from "node:fs";
import { mkdir, readdir, rename, stat } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import PQueue from "p-queue";
import { NotFoundError } from "../../src/errors.js";
import type { ConversationLog, LogEnd } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";
import { CorruptLogError, LogClosedError } from "./errors.js";
import { nodeFileOps, type FileOps } from "./file-ops.js";
import { FileTable } from "./file-table.js";
import { GroupCommitWriter, type WriterStats } from "./group-commit.js";
import { LOG_FILE_NAME, LogLayout, assertId } from "./layout.js";
import { Quarantine, type LogProblem, type ProblemListener } from "./quarantine.js";
import { ParseFailure, readRecords } from "./reader.js";

export interface FileConversationLogOptions {
  /** Conversation files kept open at once (default 256). */
  maxOpenFiles?: number;
  /** Told of every torn tail cut, file quarantined and stray file found. Must not throw. */
  onProblem?: ProblemListener;
  /** The file calls of the writer; tests inject failures here. */
  fileOps?: FileOps;
  /** Timestamps for quarantine names (default Date.now). */
  now?: () => number;
  /** Logs being read at once (default 32); each holds a descriptor and its bytes until parsed. */
  maxConcurrentReads?: number;
}

interface ReadView {
  fd: number;
  path: string;
  ino: number;
  size: number;
}

export class FileConversationLog implements ConversationLog {
  private readonly layout: LogLayout;
  private readonly ops: FileOps;
  private readonly quarantine: Quarantine;
  private readonly files: FileTable;
  private readonly writer: GroupCommitWriter;
  private readonly strays = new Set<string>();
  /**
   * Reads run here, a bounded number at once: a catch-up loads every stored conversation its
   * events touch at the same time, and each read holds a descriptor outside the file table.
   */
  private readonly reads: PQueue;
  private closing: Promise<void> | undefined;
  /** Set once the files are closed: a read that was still waiting then must not reopen one. */
  private closed = false;

  constructor(dataDir: string, options: FileConversationLogOptions = {}) {
    const maxOpen = Math.max(2, options.maxOpenFiles ?? 256);
    this.layout = new LogLayout(dataDir);
    this.ops = options.fileOps ?? nodeFileOps;
    this.quarantine = new Quarantine(this.layout, this.ops, options.now ?? Date.now, options.onProblem);
    this.files = new FileTable(this.layout, this.ops, this.quarantine, maxOpen);
    this.writer = new GroupCommitWriter(this.files, this.ops, Math.max(1, maxOpen - 1));
    this.reads = new PQueue({ concurrency: Math.max(1, options.maxConcurrentReads ?? 32) });
  }

  append(conversationId: string, records: readonly LogRecord[]): Promise<number> {
    try {
      assertId(conversationId);
      this.assertOpen();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.writer.append(conversationId, records);
  }

  async read(conversationId: string, afterN = 0): Promise<LogRecord[]> {
    assertId(conversationId);
    this.assertOpen();
    return this.reads.add(async () => {
      const view = await this.writer.exclusiveFor(conversationId, () => this.openForRead(conversationId));
      if (!view) return [];
      try {
        return await readRecords((buf, off, len, pos) => this.ops.read(view.fd, buf, off, len, pos), view.size, afterN);
      } catch (e) {
        if (e instanceof ParseFailure) throw await this.condemn(conversationId, view, e.message);
        throw e;
      } finally {
        await this.ops.close(view.fd);
      }
    });
  }

  async lastPosition(conversationId: string): Promise<number> {
    return (await this.end(conversationId)).n;
  }

  async end(conversationId: string): Promise<LogEnd> {
    assertId(conversationId);
    this.assertOpen();
    return this.writer.exclusive(async () => {
      const file = await this.files.acquire(conversationId, false);
      if (!file) return { n: 0, bytes: 0 };
      this.files.release(file);
      return { n: file.lastN, bytes: file.size };
    });
  }

  async list(): Promise<{ id: string; archived: boolean }[]> {
    this.assertOpen();
    const out: { id: string; archived: boolean }[] = [];
    const active = new Set<string>();
    for (const archived of [false, true]) {
      const dir = this.layout.dirOf(archived);
      for (const entry of await entriesOf(dir)) {
        if (!archived && entry.isDirectory() && entry.name === "archive") continue;
        const id = this.logId(dir, entry.name, entry.isFile(), archived, active);
        if (id) out.push({ id, archived });
      }
    }
    return out;
  }

  // Synchronous on purpose: it runs at start, where nothing else waits, and a stat through the
  // thread pool costs several times what the call itself does (20,000 logs: ~0.1 s against ~0.5 s).
  async sizes(): Promise<{ id: string; archived: boolean; bytes: number }[]> {
    this.assertOpen();
    const out: { id: string; archived: boolean; bytes: number }[] = [];
    const active = new Set<string>();
    for (const archived of [false, true]) {
      const dir = this.layout.dirOf(archived);
      for (const name of namesIn(dir)) {
        // Concatenated, not path.join: join normalises, and 20,000 calls of it show in a profile.
        const st = statSync(`${dir}${sep}${name}`, { throwIfNoEntry: false });
        if (!st) continue; // gone since the listing (quarantined meanwhile): nothing to compare
        if (!archived && name === "archive" && st.isDirectory()) continue;
        const id = this.logId(dir, name, st.isFile(), archived, active);
        if (id) out.push({ id, archived, bytes: st.size });
      }
    }
    return out;
  }

  async setArchived(conversationId: string, archived: boolean): Promise<void> {
    assertId(conversationId);
    this.assertOpen();
    await this.writer.exclusive(async () => {
      const from = this.layout.logPath(conversationId, !archived);
      const to = this.layout.logPath(conversationId, archived);
      if (await isFile(to)) return;
      if (!(await isFile(from))) throw new NotFoundError("conversation log", conversationId);
      await this.files.drop(conversationId);
      if (archived) await mkdir(this.layout.archive, { recursive: true, mode: 0o700 });
      await rename(from, to);
      await this.ops.syncDir(this.layout.dirOf(archived));
      await this.ops.syncDir(this.layout.dirOf(!archived));
    });
  }

  /** Flushes everything queued, then closes every file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.writer.exclusive(() => {
      this.closed = true;
      return this.files.closeAll();
    });
    return this.closing;
  }

  stats(): WriterStats {
    return this.writer.stats();
  }

  problems(): LogProblem[] {
    return this.quarantine.problems();
  }

  private assertOpen(): void {
    if (this.closing) throw new LogClosedError();
  }

  private async openForRead(id: string): Promise<ReadView | undefined> {
    if (this.closed) throw new LogClosedError();
    const file = await this.files.acquire(id, false);
    if (!file) return undefined;
    try {
      // Bytes past `size` may be an append in progress: the view stops at the last whole line.
      const ino = await this.files.inodeOf(file);
      return { fd: await this.ops.open(file.path, false), path: file.path, ino, size: file.size };
    } finally {
      this.files.release(file);
    }
  }

  // Moves the file whole into quarantine, unless someone already did (same inode check).
  private condemn(id: string, view: ReadView, detail: string): Promise<CorruptLogError> {
    return this.writer.exclusive(async () => {
      const current = await stat(view.path).catch(() => undefined);
      if (current?.ino !== view.ino) return new CorruptLogError(id, detail, undefined);
      await this.files.drop(id);
      return new CorruptLogError(id, detail, await this.quarantine.moveAside(id, view.path, dirname(view.path), detail));
    });
  }

  // The conversation id of a directory entry, or undefined (and reported) when it is not a log.
  private logId(dir: string, name: string, isFile: boolean, archived: boolean, active: Set<string>): string | undefined {
    const id = LOG_FILE_NAME.exec(name)?.[1];
    if (id && isFile && !(archived && active.has(id))) {
      if (!archived) active.add(id);
      return id;
    }
    this.reportStray(dir, name, id ? "also present among the active logs" : "not a conversation log");
    return undefined;
  }

  private reportStray(dir: string, name: string, detail: string): void {
    const path = join(dir, name);
    if (this.strays.has(path)) return;
    this.strays.add(path);
    this.quarantine.report({ id: name, kind: "stray_file", detail, path });
  }
}

async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}
