// ConversationLog over a data directory: one JSON-lines file per conversation under
// `<dataDir>/conversations/`, archived ones under `conversations/archive/`, damaged data set
// aside under `<dataDir>/quarantine/`. See group-commit.ts for durability, file-table.ts for
// tail repair, reader.ts for what makes a line damaged, set-aside.ts for what is done with it.

import { readdirSync, statSync } from "node:fs";
import { mkdir, readdir, rename, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import PQueue from "p-queue";
import { NotFoundError } from "../../src/errors.js";
import type { ConversationLog, EventJsonSource, LogEnd, WholeLog, WritingNotice } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";
import { LogClosedError } from "./errors.js";
import { nodeFileOps, type FileOps } from "./file-ops.js";
import { FileTable } from "./file-table.js";
import { GroupCommitWriter } from "./group-commit.js";
import { ThreadFileOps } from "./thread-file-ops.js";
import { gatedFileOps, PoolGate, threadPoolSize } from "./pool-gate.js";
import { LOG_FILE_NAME, LogLayout, assertId } from "./layout.js";
import { Quarantine, type LogProblem, type ProblemListener } from "./quarantine.js";
import { ParseFailure, readRecords } from "./reader.js";
import { setAsideDamaged } from "./set-aside.js";
import type { WriterStats } from "../../src/daemon-status.js";

export interface FileConversationLogOptions {
  /** Conversation files kept open at once (default 256). */
  maxOpenFiles?: number;
  /** Told of every torn tail cut, damaged line set aside, file quarantined and stray file found. Must not throw. */
  onProblem?: ProblemListener;
  /**
   * The file calls of the writer; tests inject failures here. Given, they serve the urgent lane
   * too (on libuv's pool); by default that lane has a thread of its own (thread-file-ops.ts).
   */
  fileOps?: FileOps;
  /** Timestamps for quarantine names (default Date.now). */
  now?: () => number;
  /** Logs being read at once (default 32); each holds a descriptor and its bytes until parsed. */
  maxConcurrentReads?: number;
  /** Events' JSON as their verifier serialized it, written into their records' lines as it is. */
  eventJson?: EventJsonSource;
}

interface ReadView {
  fd: number;
  size: number;
  /** Lines cut from the file's end when it was opened, not yet told to a reader. */
  setAside: number;
}

export class FileConversationLog implements ConversationLog {
  private readonly layout: LogLayout;
  private readonly ops: FileOps;
  private readonly quarantine: Quarantine;
  private readonly files: FileTable;
  private readonly writer: GroupCommitWriter;
  /** The urgent lane's thread, unless the caller gave the file calls. */
  private readonly urgentThread: ThreadFileOps | undefined;
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
    // Every file call but an urgent append's passes a gate to libuv's pool (pool-gate.ts); an
    // urgent append's run on a thread of their own, never behind a flush's (thread-file-ops.ts).
    const ops = options.fileOps ?? nodeFileOps;
    this.ops = gatedFileOps(ops, new PoolGate(2 * threadPoolSize()));
    this.urgentThread = options.fileOps ? undefined : new ThreadFileOps();
    this.quarantine = new Quarantine(this.layout, this.ops, options.now ?? Date.now, options.onProblem);
    this.files = new FileTable(this.layout, this.ops, this.quarantine, maxOpen);
    this.writer = new GroupCommitWriter(this.files, { bulk: this.ops, urgent: this.urgentThread ?? ops }, Math.max(1, maxOpen - 1), options.eventJson);
    this.reads = new PQueue({ concurrency: Math.max(1, options.maxConcurrentReads ?? 32) });
  }

  append(conversationId: string, records: readonly LogRecord[], urgent = false): Promise<number> {
    return this.refusal(conversationId) ?? this.writer.append(conversationId, records, urgent);
  }

  appendWithLines(conversationId: string, records: readonly LogRecord[], urgent = false, writing?: WritingNotice): Promise<{ end: number; lines: Uint8Array }> {
    return this.refusal(conversationId) ?? this.writer.appendWithLines(conversationId, records, urgent, writing);
  }

  // An id that cannot name a file, or a closed log: the append is refused as a rejected promise.
  private refusal(conversationId: string): Promise<never> | undefined {
    try {
      assertId(conversationId);
      this.assertOpen();
      return undefined;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async read(conversationId: string, afterN = 0): Promise<LogRecord[]> {
    if (afterN <= 0) return (await this.readWhole(conversationId)).records;
    const { records } = await this.readView(conversationId, afterN);
    return records.filter((r) => r.n > afterN);
  }

  readWhole(conversationId: string): Promise<WholeLog> {
    return this.readView(conversationId, 0);
  }

  private async readView(id: string, afterN: number): Promise<WholeLog> {
    assertId(id);
    this.assertOpen();
    return this.reads.add(async () => {
      const view = await this.writer.exclusiveFor(id, () => this.openForRead(id));
      if (!view) return { records: [], end: { n: 0, bytes: 0 }, setAside: 0 };
      try {
        const records = await readRecords((buf, off, len, pos) => this.ops.read(view.fd, buf, off, len, pos), view.size, afterN);
        return { records, end: { n: records.at(-1)?.n ?? 0, bytes: view.size }, setAside: view.setAside };
      } catch (e) {
        if (!(e instanceof ParseFailure)) throw e;
      } finally {
        await this.ops.close(view.fd);
      }
      // A damaged line: read again, alone on the files, and set it aside.
      const whole = await this.writer.exclusive(() => setAsideDamaged({ files: this.files, ops: this.ops, quarantine: this.quarantine }, id));
      return { ...whole, setAside: whole.setAside + view.setAside };
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

  /** Flushes everything queued, then closes every file and stops the urgent lane's thread. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.writer.exclusive(async () => {
      this.closed = true;
      try {
        await this.files.closeAll();
      } finally {
        await this.urgentThread?.stop();
      }
    });
    return this.closing;
  }

  /** Starts the urgent lane's thread now, so the first urgent append does not wait for it to boot. */
  warmUrgentLane(): void {
    if (!this.closing) this.urgentThread?.start();
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
      return { fd: await this.ops.open(file.path, false), size: file.size, setAside: this.files.takeSetAside(file) };
    } finally {
      this.files.release(file);
    }
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
