// One line of a log: a JSON object with an integer `n` ≥ 1 (its position) and a string `t` (its
// type). The log checks only this much; what each record type means is the domain's business.

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

/** The lines for `records` joined by "\n", without the last one (the writer adds it: no copy of
 * each line just to append a newline), or a reason they cannot go into a log. */
export function encodeRecords(records: readonly LogRecord[]): { text: string; firstN: number; lastN: number } | string {
  const lines: string[] = [];
  let prev = 0;
  for (const r of records) {
    const n: unknown = (r as { n?: unknown }).n;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) return `record has no integer n ≥ 1 (n=${String(n)})`;
    if (n <= prev) return `n must increase: ${n} after ${prev}`;
    if (typeof (r as { t?: unknown }).t !== "string") return `record ${n} has no type t`;
    prev = n;
    lines.push(JSON.stringify(r));
  }
  return { text: lines.length === 1 ? (lines[0] as string) : lines.join("\n"), firstN: (records[0] as LogRecord).n, lastN: prev };
}
