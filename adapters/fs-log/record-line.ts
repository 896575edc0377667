// One line of a log: a JSON object with an integer `n` ≥ 1 (its position) and a string `t` (its
// type). The log checks only this much; what each record type means is the domain's business.

import type { SentEvent } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";

export function parseRecordLine(text: string): LogRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { n, t } = value as { n?: unknown; t?: unknown };
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || typeof t !== "string") return undefined;
  return value as LogRecord;
}

/**
 * The lines for `records` joined by "\n", without the last one (the writer adds it: no copy of
 * each line just to append a newline), as UTF-8 bytes; or a reason they cannot go into a log.
 * `sent`: the record holding `sent.ev` has those bytes spliced into its line as its event, rather
 * than the event serialized again (`JSON.parse` of the line gives the same record back).
 */
export function encodeRecords(records: readonly LogRecord[], sent?: SentEvent): { bytes: Buffer; firstN: number; lastN: number } | string {
  const lines: string[] = [];
  let prev = 0;
  let splice = -1;
  for (const r of records) {
    const n: unknown = (r as { n?: unknown }).n;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) return `record has no integer n ≥ 1 (n=${String(n)})`;
    if (n <= prev) return `n must increase: ${n} after ${prev}`;
    if (typeof (r as { t?: unknown }).t !== "string") return `record ${n} has no type t`;
    prev = n;
    if (sent !== undefined && splice < 0 && r.t === "event" && r.ev === sent.ev) {
      splice = lines.length;
      lines.push(JSON.stringify({ ...r, ev: EV_MARK }));
    } else {
      lines.push(JSON.stringify(r));
    }
  }
  const firstN = (records[0] as LogRecord).n;
  if (splice < 0) return { bytes: Buffer.from(lines.length === 1 ? (lines[0] as string) : lines.join("\n")), firstN, lastN: prev };
  return { bytes: spliced(lines, splice, (sent as SentEvent).bytes), firstN, lastN: prev };
}

// A value no record holds, serialized as a plain number: where the event's bytes go. Found by
// its key: a `"` inside a JSON string is always escaped, so `"ev":` cannot appear in one.
const EV_MARK = 0;
const EV_MARKED = `"ev":${EV_MARK}`;

/** `lines` joined by "\n", with the event's bytes in place of the mark in line `at`. */
function spliced(lines: readonly string[], at: number, bytes: Uint8Array): Buffer {
  const line = lines[at] as string;
  const cut = line.indexOf(EV_MARKED) + EV_MARKED.length - 1;
  const before = [...lines.slice(0, at), line.slice(0, cut)].join("\n");
  const after = [line.slice(cut + 1), ...lines.slice(at + 1)].join("\n");
  const head = Buffer.byteLength(before);
  const out = Buffer.allocUnsafe(head + bytes.length + Buffer.byteLength(after));
  out.write(before, 0);
  out.set(bytes, head);
  out.write(after, head + bytes.length);
  return out;
}
