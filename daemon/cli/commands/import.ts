// `tenexd import`: bring a TENEX project's conversations (its .tenex/conversations/ folder) into
// the conversation logs, every event verified, then index what was imported.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ImportReport } from "../../../adapters/tenex-import/import-folder.js";
import { replay } from "../../../src/conversation-reducer.js";
import { loadProject } from "../../config/index.js";
import type { Command } from "../command.js";
import { CliError, EXIT } from "../errors.js";
import { formatTable } from "../table.js";
import { clip, fields } from "./support/format.js";
import { openOfflineStore } from "./support/offline-store.js";
import { need } from "./support/options.js";
import { emit } from "./support/output.js";
import { progressBar } from "./support/progress.js";

export const importCommand: Command = {
  name: "import",
  summary: "Import a TENEX project's conversations (verified) and index them (daemon stopped)",
  usage: `Usage: tenexd import [--project DIR] [--json] --from TENEX_DIR

Reads TENEX's conversation files (metadata.json and one <id>.json per conversation, archived ones
under archive/) and writes each conversation to this project's log: history, phases and their
transitions, orchestrator turns, agent cursors and sessions, execution time. Every event's id
and signature is checked; a bad event is left out and reported, its conversation still comes in.
Conversations already here are skipped, so running it twice is harmless. The source is only read.
The imported conversations are then indexed. Refused while a daemon runs on the project.

  --from TENEX_DIR   The TENEX project directory, or its .tenex/conversations/ folder`,
  options: { from: { type: "string" } },
  async run(ctx) {
    const source = conversationsFolder(resolve(ctx.projectDir, need(ctx, "from", "the TENEX project (or its .tenex/conversations/ folder)")));
    const project = await loadProject(ctx.projectDir);
    // Loaded here, not at start: the wasm verifier takes a while to compile, and every other
    // command would pay for it.
    const [{ importTenexFolder }, { wasmCheck }] = await Promise.all([
      import("../../../adapters/tenex-import/import-folder.js"), import("../../../adapters/verify/wasm-verify.js"),
    ]);
    const store = openOfflineStore(project, "importing");
    const bar = progressBar("import");
    try {
      const report = await importTenexFolder(source, {
        log: store.log,
        verify: (ev) => wasmCheck(ev) === "ok",
        agentsBySlug: new Map(project.agents.map((a) => [a.slug, a.pubkey])),
        onProgress: (p) => bar.update(p.done, p.total),
      });
      bar.end();
      for (const { id } of report.imported) {
        const records = await store.log.read(id);
        store.index.apply(replay(id, records), records);
      }
      emit(ctx, "index", { from: source, ...report, indexed: report.imported.length }, () => importText(report));
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};

function conversationsFolder(dir: string): string {
  for (const candidate of [join(dir, ".tenex", "conversations"), dir]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new CliError(`${dir} does not exist: give the TENEX project directory or its .tenex/conversations/ folder`, "not_found");
}

function importText(r: ImportReport): string {
  const out = fields([
    ["imported", `${r.imported.length} conversations, ${r.imported.reduce((n, c) => n + c.events, 0)} events`],
    ["skipped", String(r.skipped.length)],
    ["bad events", String(r.badEvents.length)],
    ["warnings", String(r.warnings.length)],
  ]);
  const imported = r.imported.map((c) => [c.id.slice(0, 12), String(c.events), c.archived ? "yes" : "", clip(c.title, 50)]);
  const problems = [
    ...r.skipped.map((s) => ["skipped", s.file ?? s.id.slice(0, 12), s.reason]),
    ...r.badEvents.map((b) => ["bad event", `${b.conversationId.slice(0, 12)} #${b.entry}`, b.reason]),
    ...r.warnings.map((w) => ["warning", clip(w.source, 30), clip(w.message, 80)]),
  ];
  return out
    + (imported.length > 0 ? `\n${formatTable(["CONVERSATION", "EVENTS", "ARCHIVED", "TITLE"], imported)}` : "")
    + (problems.length > 0 ? `\n${formatTable(["WHAT", "WHERE", "WHY"], problems)}` : "");
}
