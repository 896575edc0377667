// Reads the records of one log, checking every line it parses: a JSON object with integer `n`
// and string `t`, `n` strictly increasing (gaps allowed: a damaged line set aside leaves one).
// The first line that fails makes the log damaged: the log then sets aside what is damaged
// (set-aside.ts) and keeps the rest.

import type { LogRecord } from "../../src/records.js";
import { parseRecordLine } from "./record-line.js";
import { linesBackward, readExactly, type ReadAt } from "./tail.js";

/** Where and why a log failed to parse. Internal: the log then sets its damaged lines aside. */
export class ParseFailure extends Error {
  override name = "ParseFailure";
}

/**
 * Records of the first `size` bytes (whole lines only) with `n > afterN`. With `afterN > 0` it
 * reads backwards from the end and stops at the first record it does not need, so catching up
 * after a snapshot costs what is new, not the whole history.
 */
export async function readRecords(readAt: ReadAt, size: number, afterN: number): Promise<LogRecord[]> {
  if (size === 0) return [];
  return afterN > 0 ? readBackward(readAt, size, afterN) : readForward(readAt, size);
}

async function readForward(readAt: ReadAt, size: number): Promise<LogRecord[]> {
  const buf = Buffer.allocUnsafe(size);
  await readExactly(readAt, buf, 0);
  const lines = buf.toString("utf8").split("\n");
  lines.pop(); // `size` ends at a newline: the last element is empty
  const out: LogRecord[] = new Array(lines.length);
  let prev = 0;
  for (let i = 0; i < lines.length; i++) {
    const record = parseRecordLine(lines[i] as string);
    if (!record) throw new ParseFailure(`line ${i + 1} does not parse as a record`);
    if (record.n <= prev) throw new ParseFailure(`line ${i + 1}: n=${record.n} does not follow n=${prev}`);
    prev = record.n;
    out[i] = record;
  }
  return out;
}

async function readBackward(readAt: ReadAt, size: number, afterN: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  let next = Infinity; // n of the record after the current one
  const lines = linesBackward(readAt, size);
  await lines.next(); // nothing follows the last newline within `size`
  for await (const { start, bytes } of lines) {
    const record = parseRecordLine(bytes.toString("utf8"));
    if (!record) throw new ParseFailure(`the line at byte ${start} does not parse as a record`);
    if (record.n >= next) throw new ParseFailure(`the line at byte ${start}: n=${record.n} is followed by n=${next}`);
    if (record.n <= afterN) break;
    next = record.n;
    out.push(record);
  }
  return out.reverse();
}
