// `tenexd reindex`: rebuild the SQLite index from the conversation logs (the truth).

import { rebuildIndex } from "../../engine/recovery/index-recovery.js";
import { loadProject } from "../../config/index.js";
import type { Command } from "../command.js";
import { EXIT } from "../errors.js";
import { fields } from "../support/format.js";
import { openOfflineStore } from "../support/offline-store.js";
import { emit } from "../support/output.js";
import { progressBar } from "../support/progress.js";

export const reindex: Command = {
  name: "reindex",
  usage: `Usage: tenexd reindex [--project DIR] [--json]

Empties .tenex/index.sqlite and applies every conversation log again, with a progress bar on
stderr. The relays' high-water marks are kept. Refused while a daemon runs on the project (it
uses the index); the daemon is locked out while this runs. Exits 1 if a log could not be read
(it is named; the daemon quarantines it at its next start).`,
  options: {},
  async run(ctx) {
    const project = await loadProject(ctx.projectDir);
    const store = openOfflineStore(project, "reindexing");
    const bar = progressBar("reindex");
    const started = Date.now();
    try {
      const report = await rebuildIndex(store.log, store.index, {
        recipientsOf: store.recipientsOf, onProgress: (done, total) => bar.update(done, total),
      });
      bar.end();
      const ms = Date.now() - started;
      emit(ctx, "index", { ...report, ms, problems: store.problems }, () => fields([
        ["conversations", String(report.conversations)],
        ["records", String(report.records)],
        ["time", `${ms} ms`],
        ...report.unreadable.map((u): [string, string] => ["unreadable", `${u.id}: ${u.error}`]),
      ]));
      return report.unreadable.length > 0 ? EXIT.FAILURE : EXIT.OK;
    } finally {
      await store.close();
    }
  },
};
