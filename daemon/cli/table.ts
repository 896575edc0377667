// Plain aligned text tables for terminal output.

import { terminalSafe } from "../../src/terminal-text.js";

/** Cells are made terminal-safe (one line each) before they are measured, so columns stay aligned. */
export function formatTable(headers: readonly string[], cells: readonly (readonly string[])[], indent = ""): string {
  const rows = cells.map((r) => r.map((c) => terminalSafe(c, false)));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    indent + cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
}

/** `1a2b3c4d…`: enough of a pubkey to tell agents apart in a table. */
export const shortKey = (hex: string): string => `${hex.slice(0, 8)}…`;
