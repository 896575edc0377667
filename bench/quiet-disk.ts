// The disk left quiet before a latency run. A task that ends by deleting its directories leaves
// the disk busy for seconds after it (the writeback of what it wrote, and on a filesystem
// mounted with `discard`, the trims of what it freed), and whichever host runs next has its
// fsyncs wait behind that: in two runs of live-path then trigger-latency, the answers of the
// host that ran first had a p99 of 36.6 ms, where the same host alone had 10-21.
// `sync` writes back what is dirty; then the device's counters are read until it has had
// nothing in flight and written nothing for QUIET_MS (bounded: a disk busy for someone else
// is reported, not waited out).

import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";

const QUIET_MS = 300;
const MAX_WAIT_MS = 15_000;
const POLL_MS = 25;

export interface DiskSettle {
  /** From the call to the quiet spell's end (or to giving up). */
  waitedMs: number;
  /** Whether it found a quiet spell (false: gave up after MAX_WAIT_MS, or no counters to read). */
  quiet: boolean;
}

/** The block device holding `dir`: its counters' line in /proc/diskstats ("major minor name …"). */
function deviceOf(dir: string): { major: number; minor: number } {
  const dev = statSync(dir).dev;
  return { major: (dev >> 8) & 0xfff, minor: (dev & 0xff) | ((dev >> 12) & 0xfff00) };
}

/** [I/Os in flight, sectors written] of the device, or undefined when it has no line. */
function counters(major: number, minor: number): [number, number] | undefined {
  for (const line of readFileSync("/proc/diskstats", "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (Number(f[0]) === major && Number(f[1]) === minor) return [Number(f[11]), Number(f[9])];
  }
  return undefined;
}

export async function settleDisk(dir: string): Promise<DiskSettle> {
  const started = performance.now();
  spawnSync("sync");
  const { major, minor } = deviceOf(dir);
  let last = counters(major, minor);
  if (!last) return { waitedMs: performance.now() - started, quiet: false };
  let quietSince = performance.now();
  while (performance.now() - started < MAX_WAIT_MS) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const now = counters(major, minor)!;
    if (now[0] !== 0 || now[1] !== last[1]) quietSince = performance.now();
    last = now;
    if (performance.now() - quietSince >= QUIET_MS) return { waitedMs: performance.now() - started, quiet: true };
  }
  return { waitedMs: performance.now() - started, quiet: false };
}
