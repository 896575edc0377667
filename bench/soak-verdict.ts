// The soak's verdict (scripts/soak.mjs, docs/faults.md): from what each part did and the figures
// its tests recorded, one row per fault case (asked, ran, inputs, lost, doubled, bad accepted,
// RSS against its bound where the case has one) and every reason the soak fails. A soak passes
// only when every part passed, every case it expects reported, each ran at least what was asked,
// nothing was lost, doubled or let in, and no case passed its memory bound.
// Pure: scripts/soak.mjs runs the parts and prints.

/** What a fault test records for its case (recordFigures in test/helpers/fault-tools.ts). */
export interface CaseFigure {
  name: string;
  case: string;
  /** What the case was asked to run (trials, inputs, restarts…) and what it ran, in `unit`. */
  asked: number;
  ran: number;
  unit: string;
  /** Events (or inputs) the case put through the daemon. */
  inputs: number;
  /** Events that should be in the logs and are not. */
  lost: number;
  doubled?: number;
  /** Hostile inputs that ended up in a log. */
  bad_accepted?: number;
  crashes?: number;
  /** The most a process's resident memory reached in the case, in MB, and the bound it must keep. */
  rss_max_mb?: number;
  rss_limit_mb?: number;
}

export interface PartOutcome {
  part: string;
  /** "passed", or why not ("failed (exit 1)", "not run (out of time)"…). */
  status: string;
  /** The figure names its tests must record (a test that stopped early records none). */
  expects: readonly string[];
}

export interface CaseRow {
  name: string;
  case: string;
  unit: string;
  asked: number;
  ran: number;
  inputs: number;
  lost: number;
  doubled: number;
  badAccepted: number;
  crashes: number;
  rssMaxMb: number | null;
  rssLimitMb: number | null;
}

export interface SoakVerdict {
  passed: boolean;
  rows: CaseRow[];
  failures: string[];
}

const COUNTS = ["asked", "ran", "inputs", "lost"] as const;

export function soakVerdict(parts: readonly PartOutcome[], figures: readonly Record<string, unknown>[]): SoakVerdict {
  const failures: string[] = [];
  const rows: CaseRow[] = [];
  for (const f of figures) {
    if (f.case === undefined) continue; // a test's own extra figures
    const name = String(f.name);
    const bad = COUNTS.filter((k) => !Number.isInteger(f[k]) || (f[k] as number) < 0);
    if (bad.length > 0) {
      failures.push(`${name}: ${bad.join(", ")} not recorded as counts`);
      continue;
    }
    const num = (k: string) => (Number.isInteger(f[k]) ? (f[k] as number) : 0);
    const mb = (k: string) => (typeof f[k] === "number" && Number.isFinite(f[k]) ? (f[k] as number) : null);
    const row: CaseRow = {
      name, case: String(f.case), unit: String(f.unit ?? "runs"), asked: num("asked"), ran: num("ran"), inputs: num("inputs"),
      lost: num("lost"), doubled: num("doubled"), badAccepted: num("bad_accepted"), crashes: num("crashes"),
      rssMaxMb: mb("rss_max_mb"), rssLimitMb: mb("rss_limit_mb"),
    };
    rows.push(row);
    if (row.ran < row.asked) failures.push(`${name}: ran ${row.ran} of the ${row.asked} ${row.unit} asked`);
    if (row.inputs === 0) failures.push(`${name}: no input went through: the case tested nothing`);
    if (row.lost > 0) failures.push(`${name}: ${row.lost} events lost`);
    if (row.doubled > 0) failures.push(`${name}: ${row.doubled} events doubled`);
    if (row.badAccepted > 0) failures.push(`${name}: ${row.badAccepted} hostile inputs accepted`);
    if (row.crashes > 0) failures.push(`${name}: the daemon crashed ${row.crashes} times`);
    if (f.rss_limit_mb !== undefined && row.rssLimitMb === null) failures.push(`${name}: its RSS bound is not a number`);
    if (row.rssLimitMb !== null && row.rssMaxMb === null) failures.push(`${name}: has an RSS bound but no RSS recorded`);
    if (row.rssLimitMb !== null && row.rssMaxMb !== null && row.rssMaxMb > row.rssLimitMb) {
      failures.push(`${name}: RSS reached ${row.rssMaxMb} MB, over its ${row.rssLimitMb} MB bound`);
    }
  }
  for (const p of parts) {
    if (p.status !== "passed") failures.push(`${p.part}: ${p.status}`);
    for (const name of p.expects) {
      if (!rows.some((r) => r.name === name)) failures.push(`${p.part}: no figures from ${name} (its test stopped before recording them)`);
    }
  }
  return { passed: failures.length === 0 && parts.length > 0, rows, failures };
}

/** The rows as a fixed-width table for the terminal. */
export function soakTable(rows: readonly CaseRow[]): string {
  const head = ["case", "unit", "asked", "ran", "inputs", "lost", "doubled", "bad accepted", "RSS MB (bound)"];
  const rss = (r: CaseRow) => (r.rssMaxMb === null ? "-" : `${r.rssMaxMb}${r.rssLimitMb === null ? "" : ` (${r.rssLimitMb})`}`);
  const body = rows.map((r) => [r.case, r.unit, r.asked, r.ran, r.inputs, r.lost, r.doubled, r.badAccepted, rss(r)].map(String));
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join("  ");
  return [line(head), ...body.map(line)].join("\n");
}
