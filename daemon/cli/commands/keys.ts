// `tenexd keys`: create missing key files and show every agent's public key.

import { generateProjectKeys, type KeyReport } from "../../config/keys.js";
import type { Command, Output } from "../command.js";
import { EXIT } from "../errors.js";
import { formatTable } from "../table.js";

export const keys: Command = {
  name: "keys",
  usage: `Usage: tenexd keys [--project DIR] [--json]

Creates each key file that .tenex/agents.json (and an owner "keyFile" in config.json) names
but that does not exist yet: a fresh key, one nsec1… line, mode 0600. An existing key file is
never overwritten; it is read and its public key shown. Keys taken from environment variables
are shown when the variable is set. Exits 2 if any key is unusable (the problem is printed).`,
  options: {},
  async run(ctx) {
    const rows = await generateProjectKeys(ctx.projectDir);
    if (ctx.json) ctx.stdout.write(`${JSON.stringify({ keys: rows })}\n`);
    else printKeys(ctx.stdout, rows);
    return rows.some((r) => r.status === "error") ? EXIT.INVALID : EXIT.OK;
  },
};

export function printKeys(out: Output, rows: readonly KeyReport[]): void {
  const cells = rows.map((r) => [r.who, r.status, r.source, r.npub ?? "-", r.pubkey ?? "-"]);
  out.write(formatTable(["AGENT", "STATUS", "KEY", "NPUB", "PUBKEY (HEX)"], cells));
  for (const r of rows) if (r.problem !== undefined) out.write(`${r.who}: ${r.source}: ${r.problem}\n`);
}
