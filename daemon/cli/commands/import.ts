// `tenexd import`: bring a TENEX project's conversations (its .tenex/conversations/ folder) into
// the conversation logs, every event verified, then index what was written. The TENEX folder is
// checked against this project first (coordinate, agents): a mismatch is refused unless --force.

import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkProject, SourceSurvey, type Mismatch } from "../../../adapters/tenex-import/check-project.js";
import { TenexSourceError } from "../../../adapters/tenex-import/source-files.js";
import { loadProject, type LoadedProject } from "../../config/index.js";
import type { Command } from "../command.js";
import { CliError, EXIT } from "../errors.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { indexItem } from "../../../src/index-item.js";
import { importText, mismatchText } from "../support/import-text.js";
import { recordImportedProblems } from "../support/imported-problems.js";
import { openOfflineStore } from "../support/offline-store.js";
import { flag, need } from "../support/options.js";
import { emit } from "../support/output.js";
import { progressBar } from "../support/progress.js";

export const importCommand: Command = {
  name: "import",
  usage: `Usage: tenexd import [--project DIR] [--json] --from TENEX_DIR [--dry-run] [--force]

Reads TENEX's conversation files (metadata.json and one <id>.json per conversation, archived ones
under archive/) and writes each conversation to this project's log: history, phases and their
transitions, orchestrator turns and their completions (each linked to the event it came from,
or to none), what each agent had processed (cursor and read mark), sessions, execution time.
Every event's id and signature is checked; a bad event is left out and reported, its
conversation still comes in. A conversation imported before is topped up with what TENEX holds
that the log does not, so importing again after TENEX went on is how a migration catches up,
and importing the same folder twice adds nothing. The source is only read. What was written is
then indexed. What the import brings that the daemon would escalate to the owner (an agent over
limits.unreadThreshold, a conversation whose routing loops or stalls) is reported here and
recorded as already told. Refused while a daemon runs on the project. docs/migration.md tells
what maps to what.

First the TENEX project is compared with this one: the project coordinate its events carry
(owner and d tag, config.json) and the agents its turns and states name (slugs and keys,
agents.json). A mismatch is refused with what differs and how to fix it, since what TENEX keyed
by an unknown agent would be left out for good.

  --from TENEX_DIR   The TENEX project directory, or its .tenex/conversations/ folder
  --dry-run          Check and report what would be imported or added; write nothing
  --force            Import into a project that does not match (what names an unknown agent is left out)`,
  options: { from: { type: "string" }, "dry-run": { type: "boolean" }, force: { type: "boolean" } },
  async run(ctx) {
    const source = conversationsFolder(resolve(ctx.projectDir, need(ctx, "from", "the TENEX project (or its .tenex/conversations/ folder)")));
    const dryRun = flag(ctx, "dry-run");
    const force = flag(ctx, "force");
    const project = await loadProject(ctx.projectDir);
    // Loaded here, not at start: the wasm verifier takes a while to compile, and every other
    // command would pay for it.
    const [{ importTenexFolder, readTenexFolder }, { wasmCheck }] = await Promise.all([
      import("../../../adapters/tenex-import/import-folder.js"), import("../../../adapters/verify/wasm-verify.js"),
    ]);
    const mismatches = await noSource(source, async () => {
      const survey = new SourceSurvey();
      for await (const c of readTenexFolder(source)) survey.add(c.conversation, c.events);
      return checkProject(survey, factsOf(project));
    });
    if (mismatches.length > 0 && !force) throw refusal(source, project, mismatches);

    const store = openOfflineStore(project, "importing");
    const bar = progressBar("import");
    const written = new Map<string, Conversation>();
    try {
      const report = await noSource(source, () => importTenexFolder(source, {
        log: store.log,
        verify: (ev) => wasmCheck(ev) === "ok",
        agentsBySlug: new Map(project.agents.map((a) => [a.slug, a.pubkey])),
        orchestrator: project.orchestrator.pubkey,
        dryRun,
        onProgress: (p) => bar.update(p.done, p.total),
        onAppended: (conv, records) => {
          store.index.applyBatch([indexItem(conv, records, store.recipientsOf)]);
          written.set(conv.id, conv);
        },
      }));
      bar.end();
      const indexed = dryRun ? 0 : report.imported.length + report.toppedUp.length;
      const told = dryRun ? { agents: [], conversations: [] } : await recordImportedProblems(project, store.index, written.values(), Date.now());
      emit(ctx, "index", { from: source, dryRun, mismatches, ...report, indexed, told }, () => importText(report, { dryRun, mismatches, told }));
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};

const factsOf = (p: LoadedProject) => ({
  coordinate: p.coordinate, agents: p.agents.map((a) => ({ slug: a.slug, pubkey: a.pubkey, name: a.name })),
});

function refusal(source: string, project: LoadedProject, mismatches: readonly Mismatch[]): CliError {
  return new CliError(
    `${source} is not this project's TENEX data (${project.coordinate}); nothing was imported:\n${mismatchText(mismatches)}`
    + "Make config.json and agents.json match, then import; or import anyway with --force (what names an unknown agent"
    + " is left out, and a later import cannot bring it back); --dry-run --force shows what would come in.",
    "project_mismatch", EXIT.INVALID,
  );
}

/** A source folder that turns out not to hold TENEX data is the user's mistake, not a crash. */
async function noSource<T>(source: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TenexSourceError) throw new CliError(`${err.message}: give the TENEX project directory or its .tenex/conversations/ folder`, "no_tenex_project");
    throw err;
  }
}

function conversationsFolder(dir: string): string {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) throw new CliError(`${dir} does not exist: give the TENEX project directory or its .tenex/conversations/ folder`, "not_found");
  if (!st.isDirectory()) {
    throw new CliError(`${dir} is a file: give the TENEX project directory or its .tenex/conversations/ folder`, "usage", EXIT.INVALID);
  }
  const inside = join(dir, ".tenex", "conversations");
  return statSync(inside, { throwIfNoEntry: false })?.isDirectory() ? inside : dir;
}
