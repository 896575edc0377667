// The file calls the log makes on its conversation files, behind an interface so a test can make
// any of them fail the way a full or broken disk does (ENOSPC, EIO), even halfway through a write.

import * as fs from "node:fs";

export interface FileOps {
  /** Open read-write; with `create`, the file must not exist yet (O_EXCL). */
  open(path: string, create: boolean): Promise<number>;
  fstat(fd: number): Promise<{ size: number; ino: number }>;
  read(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  /** May write fewer bytes than asked, as write(2) may. */
  write(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  /**
   * Optional: all of `buf` written at `position`, then fdatasync, in one call, for a lane that
   * pays per call (thread-file-ops.ts: a turn of the main thread's loop each). Without it, the
   * log loops on `write` and then calls `fdatasync`.
   */
  writeAndSync?(fd: number, buf: Buffer, position: number): Promise<void>;
  /**
   * Optional, for the same lanes: opens read-write the first of `paths` that exists; with
   * `create`, creates the first (O_EXCL) when none does; undefined when none does and not
   * `create`. A missing path is passed over, any other error is thrown. Without it, the log
   * opens both places at once and creates after.
   */
  openFirst?(paths: readonly string[], create: boolean): Promise<FirstOpen | undefined>;
  ftruncate(fd: number, length: number): Promise<void>;
  close(fd: number): Promise<void>;
  /** fsync a directory, so entries created or renamed in it survive a power loss. */
  syncDir(path: string): Promise<void>;
}

/** Which of openFirst's paths was opened (its index), and whether it was created. */
export interface FirstOpen {
  fd: number;
  index: number;
  created: boolean;
}

const { O_RDWR, O_CREAT, O_EXCL, O_RDONLY } = fs.constants;

function done<T>(resolve: (v: T) => void, reject: (e: Error) => void) {
  return (err: Error | null, value: T) => (err ? reject(err) : resolve(value));
}

export const nodeFileOps: FileOps = {
  open: (path, create) =>
    // 0600 whatever the umask: a conversation is its project owner's alone.
    new Promise((res, rej) => fs.open(path, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0o600, done(res, rej))),
  fstat: (fd) =>
    new Promise((res, rej) => fs.fstat(fd, (err, st) => (err ? rej(err) : res({ size: st.size, ino: st.ino })))),
  read: (fd, buf, offset, length, position) =>
    new Promise((res, rej) => fs.read(fd, buf, offset, length, position, done(res, rej))),
  write: (fd, buf, offset, length, position) =>
    new Promise((res, rej) => fs.write(fd, buf, offset, length, position, done(res, rej))),
  fdatasync: (fd) => new Promise((res, rej) => fs.fdatasync(fd, (err) => (err ? rej(err) : res()))),
  ftruncate: (fd, length) => new Promise((res, rej) => fs.ftruncate(fd, length, (err) => (err ? rej(err) : res()))),
  close: (fd) => new Promise((res, rej) => fs.close(fd, (err) => (err ? rej(err) : res()))),
  syncDir: async (path) => {
    const fd = await new Promise<number>((res, rej) => fs.open(path, O_RDONLY, done(res, rej)));
    try {
      await new Promise<void>((res, rej) => fs.fsync(fd, (err) => (err ? rej(err) : res())));
    } finally {
      fs.closeSync(fd);
    }
  },
};
