// Small formatters for the human output.

import { terminalSafe } from "../../../src/terminal-text.js";

/** "3m ago", "2h ago", "5d ago" from epoch ms. */
export function ago(atMs: number | null | undefined, nowMs = Date.now()): string {
  if (atMs === null || atMs === undefined) return "-";
  const s = Math.max(0, Math.round((nowMs - atMs) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const agoSecs = (unixSecs: number | null | undefined, nowMs = Date.now()) =>
  ago(unixSecs === null || unixSecs === undefined ? undefined : unixSecs * 1000, nowMs);

/** "1h 02m", "3m 05s", "12s". */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** One line, at most `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
}

export const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** "key  value" lines, keys padded to one width; each value kept to its line. */
export function fields(rows: readonly (readonly [string, string])[], indent = ""): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${terminalSafe(v, false)}`).join("\n") + "\n";
}
