// One line of a log: a JSON object with an integer `n` ≥ 1 (its position) and a string `t` (its
// type). The log checks only this much; what each record type means is the domain's business.

import type { EventJsonSource } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";
import type { LinePart } from "./line-slab.js";

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
 * each line just to append a newline), as the pieces LineSlab writes, or a reason they cannot go
 * into a log. An event record's event is written as `eventJson` has it, when it has it: the text
 * `JSON.stringify` would write for it, already serialized elsewhere (EventJsonSource).
 */
export function encodeRecords(
  records: readonly LogRecord[], eventJson?: EventJsonSource,
): { parts: LinePart | LinePart[]; firstN: number; lastN: number } | string {
  // One record (most appends): its line's parts as they are, no array to gather them.
  let line: LinePart | LinePart[] = "";
  const parts: LinePart[] = [];
  let prev = 0;
  for (const r of records) {
    const n: unknown = (r as { n?: unknown }).n;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) return `record has no integer n ≥ 1 (n=${String(n)})`;
    if (n <= prev) return `n must increase: ${n} after ${prev}`;
    if (typeof (r as { t?: unknown }).t !== "string") return `record ${n} has no type t`;
    if (prev > 0) parts.push(...gathered(line), "\n");
    prev = n;
    const json = eventJson && r.t === "event" ? eventJson.take(r.ev) : undefined;
    line = json ? withEventJson(r, json) : JSON.stringify(r);
  }
  if (parts.length > 0) parts.push(...gathered(line));
  return { parts: parts.length > 0 ? parts : line, firstN: (records[0] as LogRecord).n, lastN: prev };
}

const gathered = (line: LinePart | LinePart[]): LinePart[] => (Array.isArray(line) ? line : [line]);

// The record's JSON with a stand-in for its event (U+0000: JSON writes it "\u0000"), then the
// event's JSON where the stand-in is, if it is found there only: else the record is serialized whole.
const STAND_IN = "\u0000";
const STAND_IN_JSON = JSON.stringify(STAND_IN);

function withEventJson(r: LogRecord, json: Uint8Array): LinePart[] {
  const text = JSON.stringify({ ...r, ev: STAND_IN });
  const at = text.indexOf(STAND_IN_JSON);
  if (at < 0 || text.includes(STAND_IN_JSON, at + 1)) return [JSON.stringify(r)];
  return [text.slice(0, at), json, text.slice(at + STAND_IN_JSON.length)];
}
