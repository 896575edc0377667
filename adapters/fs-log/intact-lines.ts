// Which lines of a damaged log are intact. A line is kept if it parses as a record and belongs to
// the longest run of lines whose positions `n` strictly increase; every other line is set aside.
// The longest run, not "every line after a good one": a flipped digit that turns n=57 into n=97
// must cost that one line, not the 40 lines after it that no longer "follow" it.
// Pure: bytes in, a verdict out. Only damaged logs come here (reader.ts reads the others).

import type { LogRecord } from "../../src/records.js";
import { parseRecordLine } from "./record-line.js";
import type { SetAsideLine } from "../../src/daemon-status.js";

export interface LineScan {
  records: LogRecord[];
  /** Byte ranges [start, end) of the kept lines, newline included, in order. */
  keep: [number, number][];
  setAside: SetAsideLine[];
}

interface Line {
  start: number;
  end: number;
  record: LogRecord | undefined;
}

/** Scans `buf`, whole lines only (it ends at a newline, or is empty). */
export function scanLines(buf: Buffer): LineScan {
  const lines: Line[] = [];
  for (let start = 0; start < buf.length; ) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl < 0 ? buf.length : nl;
    lines.push({ start, end, record: parseRecordLine(buf.toString("utf8", start, end)) });
    start = end + 1;
  }
  const kept = longestIncreasing(lines);
  const out: LineScan = { records: [], keep: [], setAside: [] };
  for (const [i, l] of lines.entries()) {
    if (kept.has(i)) {
      out.records.push(l.record!);
      const last = out.keep.at(-1);
      // Adjacent kept lines make one range: the rewrite copies runs, not lines.
      if (last && last[1] === l.start) last[1] = l.end + 1;
      else out.keep.push([l.start, l.end + 1]);
    } else {
      const why = l.record ? `n=${l.record.n} is out of order` : "does not parse as a record";
      out.setAside.push({ line: i + 1, offset: l.start, bytes: l.end - l.start, why });
    }
  }
  return out;
}

/** Indices of a longest subsequence of parsed lines whose `n` strictly increases (patience sort). */
function longestIncreasing(lines: readonly Line[]): Set<number> {
  // tails[k]: index of the line ending the best run of length k+1 found so far (smallest last n).
  const tails: number[] = [];
  const before = new Int32Array(lines.length).fill(-1);
  for (const [i, l] of lines.entries()) {
    if (!l.record) continue;
    const n = l.record.n;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lines[tails[mid]!]!.record!.n < n) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) before[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const kept = new Set<number>();
  for (let i = tails.at(-1) ?? -1; i >= 0; i = before[i]!) kept.add(i);
  return kept;
}

/** The lines of `bytes` (a cut tail) as set-aside lines, offsets counted from `base`. */
export function linesOf(bytes: Buffer, base: number, why: string): SetAsideLine[] {
  const out: SetAsideLine[] = [];
  for (let start = 0; start < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    out.push({ offset: base + start, bytes: end - start, why });
    start = end + 1;
  }
  return out;
}
