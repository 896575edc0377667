// The urgent lane's file calls (group-commit.ts: an append someone waits on, a trigger's or an
// agent's answer) on a thread of their own, made there with synchronous calls one at a time.
// On libuv's pool they waited for one of its four threads, held by the bulk flush's writes and
// syncs: under 2,000 ev/s a page-cache write of a few hundred bytes waited 3 ms at the median
// and 51 at the p99 (traced; commit 4cf8f3e). Here a call waits for the disk, and for a
// turn of the main thread's loop to take its answer (under load, the larger part), so related
// calls go in one trip (writeAndSync, openFirst). Descriptors are the process's: a file opened
// on either lane is written on the other; the writer never has one file in two flushes at once.
//
// The thread starts with the first call (the daemon may never make one), or earlier (start) in
// a daemon that runs agents, and holds a reference on the process only while a call is in
// flight. If it dies, its calls in flight fail (a flush then fails its file's appends and cuts
// the file back) and the next call starts a new one.

import { Worker } from "node:worker_threads";
import type { FileOps, FirstOpen } from "./file-ops.js";
import type { CallError, FileAnswer, FileCall } from "./file-ops-protocol.js";
import { detachEarly } from "../worker-thread/detach-early.js";
import { workerFile } from "../worker-thread/worker-file.js";

type Call = FileCall extends infer C ? (C extends FileCall ? Omit<C, "seq"> : never) : never;

interface Waiting {
  resolve(value: FileAnswer["value"]): void;
  reject(err: Error): void;
}

// One thread and the calls it has in flight: a thread that dies fails its own calls, not those
// already sent to the one started after it.
interface Lane {
  worker: Worker;
  waiting: Map<number, Waiting>;
}

export class ThreadFileOps implements FileOps {
  private lane: Lane | undefined;
  private seq = 0;
  private readonly script: URL;

  /** Throws WorkerScriptError when the thread's compiled script is missing or stale. */
  constructor() {
    detachEarly();
    this.script = workerFile("adapters/fs-log/file-ops-worker", ["adapters/fs-log/file-ops-protocol", "adapters/worker-thread/detach-early"]);
  }

  open = (path: string, create: boolean) => this.call({ op: "open", path, create }) as Promise<number>;
  // One trip for a log's two places and its creation (file-table.ts), not two or three.
  openFirst = (paths: readonly string[], create: boolean) =>
    this.call({ op: "openFirst", paths: [...paths], create }) as Promise<FirstOpen | undefined>;
  fstat = (fd: number) => this.call({ op: "fstat", fd }) as Promise<{ size: number; ino: number }>;
  write = (fd: number, buf: Buffer, offset: number, length: number, position: number) =>
    this.call({ op: "write", fd, bytes: own(buf.subarray(offset, offset + length)), position }) as Promise<number>;
  fdatasync = (fd: number) => this.call({ op: "fdatasync", fd }) as Promise<void>;
  // One trip for a flush's write and sync: each trip waits for a turn of the main thread's loop.
  writeAndSync = (fd: number, buf: Buffer, position: number) =>
    this.call({ op: "writeAndSync", fd, bytes: own(buf), position }) as Promise<void>;
  ftruncate = (fd: number, length: number) => this.call({ op: "ftruncate", fd, length }) as Promise<void>;
  close = (fd: number) => this.call({ op: "close", fd }) as Promise<void>;
  syncDir = (path: string) => this.call({ op: "syncDir", path }) as Promise<void>;

  read = async (fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> => {
    const bytes = (await this.call({ op: "read", fd, length, position })) as Uint8Array;
    buf.set(bytes, offset);
    return bytes.length;
  };

  /**
   * Starts the thread now rather than with the first call: it takes ~60 ms to boot, which the
   * first trigger would wait for. It costs ~11 MB of memory, so only a daemon that runs agents asks.
   */
  start(): void {
    this.started();
  }

  /** True while a thread runs (from the first call or start until stop or its death). */
  get running(): boolean {
    return this.lane !== undefined;
  }

  /** Stops the thread (the next call would start another). Calls in flight fail. */
  async stop(): Promise<void> {
    const lane = this.lane;
    this.lane = undefined;
    if (lane) await lane.worker.terminate();
  }

  private call(call: Call): Promise<FileAnswer["value"]> {
    return new Promise((resolve, reject) => {
      const { worker, waiting } = this.started();
      const seq = ++this.seq;
      waiting.set(seq, { resolve, reject });
      // Referenced only while it owes an answer: an idle lane never keeps the process alive.
      if (waiting.size === 1) worker.ref();
      // The bytes to write are a copy of their own: handed over, not cloned again.
      worker.postMessage({ ...call, seq }, "bytes" in call ? [call.bytes.buffer as ArrayBuffer] : []);
    });
  }

  private started(): Lane {
    if (this.lane) return this.lane;
    const lane: Lane = { worker: new Worker(this.script), waiting: new Map() };
    const { worker, waiting } = lane;
    worker.unref();
    worker.on("message", (answer: FileAnswer) => {
      const w = waiting.get(answer.seq);
      if (!w) return;
      waiting.delete(answer.seq);
      if (waiting.size === 0) worker.unref();
      if (answer.error) w.reject(asErrnoError(answer.error));
      else w.resolve(answer.value);
    });
    const gone = (why: Error) => {
      if (this.lane === lane) this.lane = undefined;
      for (const w of waiting.values()) w.reject(why);
      waiting.clear();
    };
    worker.on("error", gone);
    worker.on("exit", (code) => gone(new Error(`the urgent file lane's thread exited (code ${code})`)));
    this.lane = lane;
    return lane;
  }
}

// A copy of exactly these bytes: the caller's buffer may be a view of a shared pool (Node's 8 KB
// one for small buffers), which a structured clone would copy whole, and which cannot be handed over.
function own(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function asErrnoError(e: CallError): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(e.message);
  if (e.code !== undefined) err.code = e.code;
  if (e.errno !== undefined) err.errno = e.errno;
  if (e.syscall !== undefined) err.syscall = e.syscall;
  if (e.path !== undefined) err.path = e.path;
  return err;
}
