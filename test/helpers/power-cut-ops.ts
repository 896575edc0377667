// The real file calls of the log (nodeFileOps), watched to know what a power cut at any moment
// would leave: SIGKILL keeps the page cache, so only this tells an fsync'd line from one that
// merely reached the kernel. The model, as POSIX promises it and no more:
// - the bytes of a write are durable once an fdatasync of the same file, called after that
//   write completed, has itself completed;
// - a directory entry (a new file, the conversations/ directory) is durable once an fsync of
//   its directory, called after the entry existed, has completed.
// `survives(path, start, end)` says whether bytes [start, end) of a file and its entries would
// still be there after a power cut now.

import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { nodeFileOps, type FileOps } from "../../adapters/fs-log/index.js";

type Range = [start: number, end: number];

export interface PowerCutOps {
  ops: FileOps;
  /** Why bytes [start, end) of `path` would not survive a power cut now; undefined if they would. */
  lostOnPowerCut(path: string, start: number, end: number, root: string): string | undefined;
  /** Completed fdatasync and directory fsync calls. */
  syncs(): number;
}

export function powerCutOps(): PowerCutOps {
  const pathOf = new Map<number, string>();
  /** Completed writes not yet covered by a completed sync, per file. */
  const unsynced = new Map<string, Range[]>();
  const durable = new Map<string, Range[]>();
  const durableEntries = new Map<string, Set<string>>();
  let syncs = 0;

  const list = <T>(m: Map<string, T[]>, k: string) => {
    let v = m.get(k);
    if (!v) m.set(k, (v = []));
    return v;
  };
  const clip = (ranges: Range[], size: number): Range[] =>
    ranges.filter(([s]) => s < size).map(([s, e]): Range => [s, Math.min(e, size)]);

  const ops: FileOps = {
    ...nodeFileOps,
    open: async (path, create) => {
      const fd = await nodeFileOps.open(path, create);
      pathOf.set(fd, path);
      return fd;
    },
    close: async (fd) => {
      pathOf.delete(fd);
      await nodeFileOps.close(fd);
    },
    write: async (fd, buf, off, len, pos) => {
      const wrote = await nodeFileOps.write(fd, buf, off, len, pos);
      const path = pathOf.get(fd);
      if (path && wrote > 0) list(unsynced, path).push([pos, pos + wrote]);
      return wrote;
    },
    fdatasync: async (fd) => {
      const path = pathOf.get(fd);
      // Only what was written before the call is promised.
      const covered = path ? [...list(unsynced, path)] : [];
      await nodeFileOps.fdatasync(fd);
      syncs++;
      if (!path) return;
      list(durable, path).push(...covered);
      unsynced.set(path, list(unsynced, path).filter((r) => !covered.includes(r)));
    },
    ftruncate: async (fd, length) => {
      await nodeFileOps.ftruncate(fd, length);
      const path = pathOf.get(fd);
      if (!path) return;
      // Bytes cut off are gone, whatever was synced before.
      durable.set(path, clip(list(durable, path), length));
      unsynced.set(path, clip(list(unsynced, path), length));
    },
    syncDir: async (dir) => {
      const entries = readdirSync(dir);
      await nodeFileOps.syncDir(dir);
      syncs++;
      const known = durableEntries.get(dir) ?? new Set<string>();
      for (const e of entries) known.add(e);
      durableEntries.set(dir, known);
    },
  };

  function lostOnPowerCut(path: string, start: number, end: number, root: string): string | undefined {
    // Every entry from the file up to `root` (the data directory, made by the test) must be durable.
    for (let p = path; p !== root && dirname(p) !== p; p = dirname(p)) {
      if (!durableEntries.get(dirname(p))?.has(basename(p))) return `the entry of ${p} in its directory was never fsync'd`;
    }
    const ranges = [...list(durable, path)].sort((a, b) => a[0] - b[0]);
    let reached = start;
    for (const [s, e] of ranges) {
      if (s > reached) break;
      reached = Math.max(reached, e);
      if (reached >= end) return undefined;
    }
    return `bytes ${reached}..${end} of ${basename(path)} (line ${start}..${end}) were not covered by a completed fdatasync`;
  }

  return { ops, lostOnPowerCut, syncs: () => syncs };
}

/** Byte range [start, end) of the line of `path` holding `needle`, its newline included. */
export function lineOf(path: string, needle: string): [number, number] {
  const bytes = readFileSync(path);
  const at = bytes.indexOf(needle);
  if (at < 0) throw new Error(`${needle} is not in ${path}`);
  const nl = bytes.indexOf(0x0a, at);
  return [bytes.lastIndexOf(0x0a, at) + 1, nl < 0 ? bytes.length : nl + 1];
}
