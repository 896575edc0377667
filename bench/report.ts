// The results of one run: every figure beside its goal (met or missed), the machine limit
// measured in the same run and TENEX's figure, as bench/results/latest.json (for machines and
// for comparing runs) and latest.md (the table the README links to), and as a console table.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Figure } from "./figure.js";
import { GOALS, goalText, verdict } from "./goals.js";

export interface RunInfo {
  date: string;
  quick: boolean;
  durationS: number;
  node: string;
  cpu: string;
  cores: number;
  /** 1-minute load average at the start, at the end and the highest seen at any step: other work on the machine. */
  loadavg: { start: number; end: number; max: number };
  /** What this run did not measure, and why. */
  skipped: string[];
  /** Benchmarks that failed, with their error. */
  failed: string[];
}

export interface Row extends Figure {
  goal: string;
  verdict: "met" | "missed" | "";
  tenex: string;
}

export function toRows(figures: readonly Figure[]): Row[] {
  return figures.map((f) => ({
    ...f,
    goal: f.goal ?? goalText(f.name),
    verdict: verdict(f.name, f.value),
    tenex: GOALS[f.name]?.tenex ?? "",
  }));
}

const HEAD = ["figure", "value", "unit", "goal", "", "limit", "TENEX"];
const cells = (r: Row) => [r.name, String(r.value), r.unit, r.goal, r.verdict, r.limit !== undefined ? String(r.limit) : "", r.tenex];

export function consoleTable(rows: readonly Row[]): string {
  const table = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

function markdown(info: RunInfo, rows: readonly Row[]): string {
  const esc = (s: string) => s.replaceAll("|", "\\|");
  const mark = (v: Row["verdict"]) => (v === "met" ? "met" : v === "missed" ? "**missed**" : "");
  const lines = [
    "# tenexd benchmark results",
    "",
    `${info.quick ? "Quick" : "Full"} run of \`npm run bench${info.quick ? " -- --quick" : ""}\` on ${info.date}, ` +
      `${Math.round(info.durationS)} s; Node ${info.node}; ${info.cpu} × ${info.cores} cores; ` +
      `1-minute load average ${info.loadavg.start} at the start, ${info.loadavg.end} at the end, ${info.loadavg.max} at most` +
      (info.loadavg.max > info.cores ? ` (above ${info.cores}: other work shared the cores, so figures are lower than this machine can do).` : "."),
    "Goals are bench/goals.ts's and the issues'; *limit* is the machine limit measured in the same run (see each note); " +
      "TENEX is TENEX's own ConversationManager on the same workload on this machine.",
    "",
    "| figure | value | unit | goal | | limit | TENEX |",
    "|---|--:|---|---|---|--:|---|",
    ...rows.map((r) => `| \`${r.name}\` | ${r.value} | ${esc(r.unit)} | ${esc(r.goal)} | ${mark(r.verdict)} | ${r.limit ?? ""} | ${esc(r.tenex)} |`),
    "",
    "## How each figure was measured",
    "",
    ...rows.filter((r) => r.note).map((r) => `- \`${r.name}\`: ${r.note}`),
  ];
  if (info.skipped.length > 0) lines.push("", "## Not measured in this run", "", ...info.skipped.map((s) => `- ${s}`));
  if (info.failed.length > 0) lines.push("", "## Failed", "", ...info.failed.map((s) => `- ${s}`));
  return `${lines.join("\n")}\n`;
}

/** Writes latest.json and latest.md into `dir`; returns their paths. */
export function writeResults(dir: string, info: RunInfo, rows: readonly Row[]): string[] {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "latest.json");
  const md = join(dir, "latest.md");
  const limits = Object.fromEntries(rows.filter((r) => r.name.endsWith("_limit_evps") || r.name.endsWith("_limit_lps") || r.name.endsWith("_limit_rps"))
    .map((r) => [r.name, r.value]));
  writeFileSync(json, `${JSON.stringify({ ...info, limits, figures: rows }, null, 2)}\n`);
  writeFileSync(md, markdown(info, rows));
  return [json, md];
}
