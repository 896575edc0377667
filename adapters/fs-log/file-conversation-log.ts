// ConversationLog over a data directory: one JSON-lines file per conversation under
// `<dataDir>/conversations/`, archived ones under `conversations/archive/`, damaged data set
// aside under `<dataDir>/quarantine/`. See group-commit.ts for durability, file-table.ts for
// tail repair, reader.ts for what makes a file corrupt.

import { mkdir, open, readdir, rename, stat, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { NotFoundError } from "../../src/errors.js";
import type { ConversationLog } from "../../src/ports.js";
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
}

interface ReadView {
  fh: FileHandle;
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
  private closing: Promise<void> | undefined;

  constructor(dataDir: string, options: FileConversationLogOptions = {}) {
    const maxOpen = Math.max(2, options.maxOpenFiles ?? 256);
    this.layout = new LogLayout(dataDir);
    this.ops = options.fileOps ?? nodeFileOps;
    this.quarantine = new Quarantine(this.layout, this.ops, options.now ?? Date.now, options.onProblem);
    this.files = new FileTable(this.layout, this.ops, this.quarantine, maxOpen);
    this.writer = new GroupCommitWriter(this.files, this.ops, Math.max(1, maxOpen - 1));
  }

  append(conversationId: string, records: readonly LogRecord[]): Promise<void> {
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
    const view = await this.writer.exclusive(() => this.openForRead(conversationId));
    if (!view) return [];
    try {
      return await readRecords(view.fh, view.size, afterN);
    } catch (e) {
      if (e instanceof ParseFailure) throw await this.condemn(conversationId, view, e.message);
      throw e;
    } finally {
      await view.fh.close();
    }
  }

  async lastPosition(conversationId: string): Promise<number> {
    assertId(conversationId);
    this.assertOpen();
    return this.writer.exclusive(async () => {
      const file = await this.files.acquire(conversationId, false);
      if (!file) return 0;
      this.files.release(file);
      return file.lastN;
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
        const id = LOG_FILE_NAME.exec(entry.name)?.[1];
        if (id && entry.isFile() && !(archived && active.has(id))) {
          if (!archived) active.add(id);
          out.push({ id, archived });
        } else {
          this.reportStray(dir, entry.name, id ? "also present among the active logs" : "not a conversation log");
        }
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
      if (archived) await mkdir(this.layout.archive, { recursive: true });
      await rename(from, to);
      await this.ops.syncDir(this.layout.dirOf(archived));
      await this.ops.syncDir(this.layout.dirOf(!archived));
    });
  }

  /** Flushes everything queued, then closes every file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.writer.exclusive(() => this.files.closeAll());
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
    const file = await this.files.acquire(id, false);
    if (!file) return undefined;
    try {
      // Bytes past `size` may be an append in progress: the view stops at the last whole line.
      return { fh: await open(file.path, "r"), path: file.path, ino: file.ino, size: file.size };
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

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}
