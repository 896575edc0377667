// `tenexd damage`: the damage recorded in the logs (lines set aside, logs moved aside whole), and
// clearing it once an operator has handled it. The records are files in .tenex/quarantine/ that
// the daemon only ever adds to, so this works with or without a running daemon; clearing marks a
// record cleared and deletes nothing (the saved bytes stay, for as long as the operator wants).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { clearDamage, listDamage } from "../../../adapters/fs-log/damage-records.js";
import { TENEX_DIR } from "../../config/read-project-files.js";
import type { Command } from "../command.js";
import { CliError, EXIT, usageError } from "../errors.js";
import { CLEAR_HINT, damageTable } from "../support/damage-text.js";
import { flag, listOpt } from "../support/options.js";

export const damage: Command = {
  name: "damage",
  usage: `Usage: tenexd damage [--project DIR] [--json] [--all] [--clear ID]... [--clear-all]

Lists the damage the daemon found in the conversation logs and has not been cleared: lines
set aside from a log (the log keeps every intact line; the conversation is still served) and
logs moved aside whole (no line of them parsed). Each record says which log, which lines (by
byte offset and line number), when, and where the set-aside bytes were saved under
.tenex/quarantine/. The status and tenexd doctor show the same records until they are cleared.

  --all          Also list the records already cleared
  --clear ID     Mark a record cleared (repeatable; the saved bytes are kept)
  --clear-all    Mark every open record cleared

Works with or without a running daemon. Exits 1 if an ID names no open record.`,
  options: { all: { type: "boolean" }, clear: { type: "string", multiple: true }, "clear-all": { type: "boolean" } },
  async run(ctx) {
    const dir = join(ctx.projectDir, TENEX_DIR);
    if (!existsSync(dir)) throw new CliError(`no ${TENEX_DIR}/ in ${ctx.projectDir}: give the project with --project DIR`, "no_project");
    const ids = listOpt(ctx, "clear");
    const all = flag(ctx, "clear-all");
    if (ids && all) throw usageError("give --clear ID or --clear-all, not both");
    if (ids || all) {
      const cleared = clearDamage(dir, all ? "all" : ids!, Date.now());
      const unknown = (ids ?? []).filter((id) => !cleared.includes(id));
      if (unknown.length > 0) {
        const done = cleared.length > 0 ? ` (cleared ${cleared.join(", ")})` : "";
        throw new CliError(`no open damage record ${unknown.join(", ")}${done}: see tenexd damage`, "not_found");
      }
      if (ctx.json) ctx.stdout.write(`${JSON.stringify({ cleared })}\n`);
      else ctx.stdout.write(cleared.length > 0 ? `Cleared ${cleared.join(", ")}\n` : "Nothing to clear\n");
      return EXIT.OK;
    }
    const records = listDamage(dir, { all: flag(ctx, "all") });
    if (ctx.json) ctx.stdout.write(`${JSON.stringify({ damage: records })}\n`);
    else ctx.stdout.write(records.length > 0 ? `${damageTable(records)}${CLEAR_HINT}\n` : "No damage recorded in the logs\n");
    return EXIT.OK;
  },
};
