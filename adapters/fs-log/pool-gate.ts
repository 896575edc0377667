// Node runs every asynchronous file call on libuv's thread pool (4 threads unless
// UV_THREADPOOL_SIZE was set before Node started), first come first served. A flush of 200
// conversation files queued some 600 calls there at once, and an urgent append (a trigger its
// agent waits on) queued each of its own open, write and sync behind all of them: at 2,000
// events a second they waited 41, 11 and 7 ms at the median, up to 200 ms each
// (docs/performance.md, "From a message to its agent"). The log's ordinary calls pass through
// this gate: at most `depth` of them in the pool at once, running or queued, so an urgent call,
// which does not pass through it, waits behind a few at most. The depth is twice the pool's
// threads, so each thread has a call queued while the main thread is busy elsewhere (handed one
// at a time, a thread would idle until the main thread's next turn); with it the log's own
// throughput did not change (log_append_200conv_rps, alternated with the code before).

import { Fifo } from "../../src/fifo.js";
import type { FileOps } from "./file-ops.js";

export class PoolGate {
  private inPool = 0;
  private readonly waiting = new Fifo<() => void>();

  constructor(private readonly depth: number) {}

  /** Runs `call` once fewer than `depth` gated calls are in the pool; in the order asked. */
  run<T>(call: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.inPool++;
        let running: Promise<T>;
        try {
          running = call();
        } catch (e) {
          running = Promise.reject(e);
        }
        running.then(resolve, reject).finally(() => {
          this.inPool--;
          if (this.waiting.size > 0 && this.inPool < this.depth) this.waiting.shift()!();
        });
      };
      if (this.waiting.size === 0 && this.inPool < this.depth) start();
      else this.waiting.push(start);
    });
  }
}

/** The threads of libuv's pool in this process (what UV_THREADPOOL_SIZE set, else libuv's 4). */
export function threadPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 1024) : 4;
}

/** `ops` with every call passed through `gate`. */
export function gatedFileOps(ops: FileOps, gate: PoolGate): FileOps {
  return {
    open: (path, create) => gate.run(() => ops.open(path, create)),
    fstat: (fd) => gate.run(() => ops.fstat(fd)),
    read: (fd, buf, offset, length, position) => gate.run(() => ops.read(fd, buf, offset, length, position)),
    write: (fd, buf, offset, length, position) => gate.run(() => ops.write(fd, buf, offset, length, position)),
    fdatasync: (fd) => gate.run(() => ops.fdatasync(fd)),
    ftruncate: (fd, length) => gate.run(() => ops.ftruncate(fd, length)),
    close: (fd) => gate.run(() => ops.close(fd)),
    syncDir: (path) => gate.run(() => ops.syncDir(path)),
  };
}
