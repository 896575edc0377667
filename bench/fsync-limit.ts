// The machine's limit for durable appends: ~0.9 KB lines written to one file with one write and
// one fdatasync per batch of 1,000, as fast as the disk allows. The log's own throughput is read
// against this figure. Also the rate of lone fsync'd small writes: what an append would cost
// without group commit.

import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Figure } from "./figure.js";

const LINE = `${"lorem ipsum dolor sit amet ".repeat(33).slice(0, 899)}\n`;

export interface FsyncLimit {
  /** Lines per second, batches of `batch` lines, one write + one fdatasync each. */
  linesPerSec: number;
  /** Lone one-line write + fdatasync pairs per second. */
  singlePerSec: number;
}

export function measureFsyncLimit(batches = 100, batch = 1000, singles = 300): FsyncLimit {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-fsync-"));
  try {
    const chunk = Buffer.from(LINE.repeat(batch));
    const fd = openSync(join(dir, "batched.jsonl"), "a");
    let start = performance.now();
    for (let i = 0; i < batches; i++) {
      writeSync(fd, chunk);
      fdatasyncSync(fd);
    }
    const linesPerSec = (batches * batch) / ((performance.now() - start) / 1000);
    closeSync(fd);

    const line = Buffer.from(LINE);
    const one = openSync(join(dir, "single.jsonl"), "a");
    start = performance.now();
    for (let i = 0; i < singles; i++) {
      writeSync(one, line);
      fdatasyncSync(one);
    }
    const singlePerSec = singles / ((performance.now() - start) / 1000);
    closeSync(one);
    return { linesPerSec, singlePerSec };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFsyncLimit(): Promise<Figure[]> {
  const { linesPerSec, singlePerSec } = measureFsyncLimit();
  return [
    {
      name: "fsync_append_limit_lps", value: Math.round(linesPerSec), unit: "lines/s",
      note: "machine limit: 100 batches of 1,000 × 0.9 KB lines, one write + one fdatasync per batch",
    },
    {
      name: "fsync_single_append_lps", value: Math.round(singlePerSec), unit: "lines/s",
      note: "one 0.9 KB line per write + fdatasync: the rate without group commit",
    },
  ];
}
