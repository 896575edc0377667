// Reading a log from its end: what lastPosition, tail repair and read(afterN) need, at a cost
// set by the size of the tail they look at, never by the size of the history.

import { parseRecordLine } from "./record-line.js";

/** Positional read, as read(2): may return fewer bytes than asked. */
export type ReadAt = (buf: Buffer, offset: number, length: number, position: number) => Promise<number>;

const WINDOW = 64 * 1024;

export async function readExactly(readAt: ReadAt, buf: Buffer, position: number): Promise<void> {
  for (let off = 0; off < buf.length; ) {
    const got = await readAt(buf, off, buf.length - off, position + off);
    if (got <= 0) throw new Error(`unexpected end of file at ${position + off}`);
    off += got;
  }
}

/**
 * The lines of the first `size` bytes, last first, 64 KB at a time. The first one yielded is
 * whatever follows the last newline (empty when the data ends with one): an unfinished line.
 */
export async function* linesBackward(readAt: ReadAt, size: number): AsyncGenerator<{ start: number; bytes: Buffer }> {
  let carry = Buffer.alloc(0); // the start of the line that runs past this window, not yet seen
  let pos = size;
  while (pos > 0) {
    const len = Math.min(WINDOW, pos);
    pos -= len;
    const buf = Buffer.allocUnsafe(len);
    await readExactly(readAt, buf, pos);
    const data = carry.length ? Buffer.concat([buf, carry]) : buf;
    let end = data.length;
    while (end > 0) {
      const nl = data.lastIndexOf(0x0a, end - 1);
      if (nl < 0) break;
      yield { start: pos + nl + 1, bytes: data.subarray(nl + 1, end) };
      end = nl;
    }
    carry = data.subarray(0, end);
  }
  yield { start: 0, bytes: carry };
}

export type TailVerdict =
  /**
   * Bytes past `goodSize` are to be cut off; `lastN` is the last intact record's. `damaged`: more
   * than a crash can tear (two or more whole lines after the last intact one): damage, recorded
   * as such, not a torn tail.
   */
  | { ok: true; goodSize: number; lastN: number; damaged: boolean }
  /** No line of the file parses: there is nothing intact to keep in place. */
  | { ok: false; detail: string };

/**
 * Finds where the intact part of a log ends. A crash mid-append leaves an unfinished line, or a
 * last line that does not parse (a page of zeros after a power loss): both are torn. Further
 * back than that, whole lines that do not parse are damage: the search goes on to the last line
 * that parses, reading as far back as the damage goes (only a damaged log costs more than its
 * last lines).
 */
export async function inspectTail(readAt: ReadAt, size: number): Promise<TailVerdict> {
  const lines = linesBackward(readAt, size);
  await lines.next(); // the unfinished line, if any: always torn
  for (let tried = 0; ; tried++) {
    const next = await lines.next();
    if (next.done) {
      // Only an unfinished line, or one bad line: a log a crash tore down to nothing.
      return tried <= 1 ? { ok: true, goodSize: 0, lastN: 0, damaged: false } : { ok: false, detail: "no line parses as a record" };
    }
    const { start, bytes } = next.value;
    const record = parseRecordLine(bytes.toString("utf8"));
    if (record) return { ok: true, goodSize: start + bytes.length + 1, lastN: record.n, damaged: tried >= 2 };
  }
}
