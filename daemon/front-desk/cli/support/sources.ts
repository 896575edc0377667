// Where a CLI command gets its answers: the running daemon's API, or, for reads when no daemon
// runs, the index opened read-only (said on stderr, and as "source": "index" in JSON). Commands
// that change state need the daemon: only it writes.

import { TenexClient } from "../../client/client.js";
import { discoverDaemon, runningDaemonPid } from "../../client/discover.js";
import type { ReadApi } from "../../reads/reads.js";
import type { CommandContext } from "../../../cli/command.js";
import { CliError } from "../../../cli/errors.js";
import { join } from "node:path";
import type { DamageRecord } from "../../../../src/daemon-status.js";
import { requireTenexDir } from "../../../config/tenex-dir.js";

export type Source = "daemon" | "index";

export interface ReadSource {
  api: ReadApi;
  source: Source;
  /** The daemon's client, when it answers. */
  client?: TenexClient;
  /** The damage recorded in the logs, read from the files (answered from the index only: the daemon's status has it). */
  damage?: () => DamageRecord[];
  /** Answered from the index while this live process holds the project's lock (a daemon starting, a reindex). */
  lockedBy?: number;
  close(): void;
}

export const OFFLINE_NOTICE = "(daemon not running: answered from the index, read-only)";
const lockedNotice = (pid: number) =>
  `(tenexd pid ${pid} holds the project's lock but its API does not answer: it is starting, or a reindex or import runs; answered from the index, read-only)`;

const tenexDir = (ctx: CommandContext) => join(ctx.projectDir, ".tenex");

export async function openReads(ctx: CommandContext): Promise<ReadSource> {
  const endpoint = discoverDaemon(tenexDir(ctx));
  if (endpoint) {
    const client = new TenexClient(endpoint);
    return { api: client, client, source: "daemon", close: () => undefined };
  }
  // Loaded only here: the configuration's schemas (zod), the index (better-sqlite3) and the reads
  // were most of a `tenexd status` against a running daemon (cli_status_wall_ms, bench/cli-wall.ts).
  // No project there: said before loading them (~460 modules, 300 ms).
  requireTenexDir(ctx.projectDir);
  const [{ loadProject }, { openOfflineReads }, { AgentDirectory }, { readContext }, { Reads }] = await Promise.all([
    import("../../../config/index.js"), import("../../../offline-reads.js"), import("../../reads/agent-directory.js"),
    import("../../reads/read-context.js"), import("../../reads/reads.js"),
  ]);
  const project = await loadProject(ctx.projectDir);
  const offline = openOfflineReads(project);
  const reads = new Reads(readContext(offline, new AgentDirectory(project.info), project.config.limits));
  const holder = runningDaemonPid(tenexDir(ctx));
  process.stderr.write(`${holder !== undefined ? lockedNotice(holder) : OFFLINE_NOTICE}\n`);
  return { api: reads, source: "index", damage: () => offline.damage(), close: () => offline.close(), ...(holder !== undefined ? { lockedBy: holder } : {}) };
}

export function requireDaemon(ctx: CommandContext, what: string): TenexClient {
  const endpoint = discoverDaemon(tenexDir(ctx));
  if (!endpoint) {
    throw new CliError(`${what} needs the running daemon (only it writes): start it with \`tenexd start --project ${ctx.projectDir}\``, "daemon_not_running");
  }
  return new TenexClient(endpoint);
}

/** The running daemon's client, or undefined when none runs. */
export function daemonClient(ctx: CommandContext): TenexClient | undefined {
  const endpoint = discoverDaemon(tenexDir(ctx));
  return endpoint ? new TenexClient(endpoint) : undefined;
}
