// The human output of `tenexd import`: what came in, what was added to conversations imported
// before, how TENEX's completions and END turns were mapped (said once, not per item), and the
// problems, one row each.

import type { Mismatch } from "../../../adapters/tenex-import/check-project.js";
import type { AddedRecords, ImportReport } from "../../../adapters/tenex-import/import-folder.js";
import { formatTable } from "../table.js";
import { clip, fields } from "./format.js";
import type { ToldProblems } from "./imported-problems.js";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "2 events, 1 completion, 1 cursor" */
function addedText(added: AddedRecords): string {
  return Object.entries(added).map(([t, n]) => plural(n ?? 0, t.replace("_", " "))).join(", ");
}

export function mismatchText(mismatches: readonly Mismatch[]): string {
  return mismatches.map((m) => `  - ${m.message}\n    fix: ${m.fix}\n`).join("");
}

function completionsText(r: ImportReport): string {
  const { linked, merged, unlinked } = r.completions;
  const parts = [`${linked} linked to their events`];
  if (merged > 0) parts.push(`${merged} recorded twice by TENEX (merged into the first)`);
  if (unlinked > 0) parts.push(`${unlinked} with no event (kept under an "import:" key)`);
  return parts.join(", ");
}

export function importText(r: ImportReport, opts: { dryRun: boolean; mismatches: readonly Mismatch[]; told: ToldProblems }): string {
  const would = (s: string) => (opts.dryRun ? `would be ${s}` : s);
  const events = r.imported.reduce((n, c) => n + c.events, 0);
  const rows: [string, string][] = [
    [opts.dryRun ? "would import" : "imported", `${plural(r.imported.length, "conversation")}, ${plural(events, "event")}`],
    [opts.dryRun ? "would top up" : "topped up", plural(r.toppedUp.length, "conversation")],
    ["unchanged", String(r.unchanged.length)],
    ["skipped", String(r.skipped.length)],
    ["completions", completionsText(r)],
  ];
  if (r.endTurns > 0) {
    rows.push(["END turns", `${r.endTurns}: TENEX's "workflow done" opens no tenexd turn; an unfinished turn before one ends there (cancelled)`]);
  }
  rows.push(["bad events", String(r.badEvents.length)], ["warnings", String(r.warnings.length)]);
  const { told } = opts;
  if (told.agents.length > 0) {
    rows.push(["over threshold", `${told.agents.join(", ")}: imported mail no TENEX agent had processed (not escalated: see tenexd inbox)`]);
  }
  if (told.conversations.length > 0) {
    rows.push(["looping", `${told.conversations.map((id) => id.slice(0, 12)).join(", ")}: routing that loops or stalls, imported (not escalated)`]);
  }
  const head = (opts.dryRun ? "dry run: nothing was written\n" : "")
    + (opts.mismatches.length > 0 ? `imported with --force despite:\n${mismatchText(opts.mismatches)}` : "");
  const imported = r.imported.map((c) => [c.id.slice(0, 12), String(c.events), c.archived ? "yes" : "", clip(c.title, 50)]);
  const topped = r.toppedUp.map((c) => [c.id.slice(0, 12), clip(c.title, 30), would(`added ${addedText(c.added)}`)]);
  const problems = [
    ...r.skipped.map((s) => ["skipped", s.file ?? s.id.slice(0, 12), s.reason]),
    ...r.badEvents.map((b) => ["bad event", `${b.conversationId.slice(0, 12)} #${b.entry}`, b.reason]),
    ...r.warnings.map((w) => ["warning", clip(w.source, 30), clip(w.message, 100)]),
  ];
  return head + fields(rows)
    + (imported.length > 0 ? `\n${formatTable(["CONVERSATION", "EVENTS", "ARCHIVED", "TITLE"], imported)}` : "")
    + (topped.length > 0 ? `\n${formatTable(["TOPPED UP", "TITLE", "WHAT"], topped)}` : "")
    + (problems.length > 0 ? `\n${formatTable(["WHAT", "WHERE", "WHY"], problems)}` : "");
}
