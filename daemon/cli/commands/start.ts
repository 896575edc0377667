// `tenexd start`: load and validate the project, report what was loaded, run until a signal.

import { accessSync, constants } from "node:fs";
import { join, relative } from "node:path";
import { npubEncode } from "nostr-tools/nip19";
import { runningDaemonPid } from "../../front-desk/client/discover.js";
import { loadProject, type LoadedProject } from "../../config/index.js";
import { ProjectLockedError } from "../../pid-lock.js";
import type { Command } from "../command.js";
import { EXIT } from "../errors.js";
import { exitWhenFlushed } from "../exit.js";
import { formatTable, shortKey } from "../table.js";

export const start: Command = {
  name: "start",
  usage: `Usage: tenexd start [--project DIR] [--json] [--log-json]

Loads and validates <DIR>/.tenex/config.json, agents.json and every agent's key, prints what it
loaded (project coordinate, agents, relays), then runs the daemon until SIGINT or SIGTERM, or
until \`tenexd stop\`. With --json the report is one JSON object on stdout. Logs go to stderr.
A configuration problem is reported with its file and field, and exits 2. Another tenexd running
on the project exits 3; a .tenex that is not writable 4; no space left for it 5.`,
  options: {},
  async run(ctx) {
    // Handlers go in before anything is printed: whoever reads the report may signal at once.
    const stop = new AbortController();
    let logger = ctx.logger().child({ component: "daemon" });
    const onSignal = (signal: NodeJS.Signals) => {
      if (stop.signal.aborted) {
        logger.warn("second signal: exiting without a clean stop", { signal });
        void exitWhenFlushed(130);
      }
      logger.info("stopping", { signal });
      stop.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      const project = await loadProject(ctx.projectDir);
      refuseEarly(project.tenexDir);
      logger = ctx.logger(project.config.logLevel).child({ component: "daemon" });
      ctx.stdout.write(ctx.json ? `${JSON.stringify(loadedSummary(project))}\n` : loadedReport(project));
      // Loaded here, not at the top: every other command would pay for loading the daemon.
      const { runDaemon } = await import("../../run.js");
      await runDaemon(project, {
        signal: stop.signal, logger,
        // Asked again while stopping: nothing more to do (a second signal, unlike this, means "now").
        requestStop: () => {
          if (stop.signal.aborted) return;
          logger.info("stopping", { by: "tenexd stop" });
          stop.abort();
        },
        onReady: (r) => {
          const ready = { ready: true, ...r };
          ctx.stdout.write(ctx.json ? `${JSON.stringify(ready)}\n`
            : `ready in ${ready.ms} ms: ${ready.conversations} conversations, relays ${ready.relays.join(", ")}\n`);
        },
      });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    logger.info("stopped");
    return EXIT.OK;
  },
};

/**
 * A project another tenexd runs, or a .tenex that cannot be written, is said before the report
 * of what was loaded (the daemon checks both again, for real, when it takes the lock).
 */
function refuseEarly(tenexDir: string): void {
  const pid = runningDaemonPid(tenexDir);
  if (pid !== undefined && pid !== process.pid) throw new ProjectLockedError(join(tenexDir, "daemon.pid"), pid);
  accessSync(tenexDir, constants.W_OK);
}

export function loadedSummary(p: LoadedProject) {
  const { relays, embeddedRelay, api } = p.config;
  return {
    project: { coordinate: p.coordinate, title: p.config.project.title, owner: p.owner.pubkey, dir: p.tenexDir },
    relays,
    embeddedRelay: relays.length === 0 ? embeddedRelay : null,
    api,
    agents: p.agents.map((a) => ({
      slug: a.slug, name: a.name, role: a.role, orchestrator: a.isOrchestrator, pubkey: a.pubkey, backend: a.backend,
    })),
  };
}

export function loadedReport(p: LoadedProject): string {
  const { relays, embeddedRelay, api } = p.config;
  const relayText = relays.length > 0 ? relays.join(", ") : `embedded relay on ${embeddedRelay.host}:${portText(embeddedRelay.port)}`;
  const agents = p.agents.map((a) => [a.slug + (a.isOrchestrator ? " *" : ""), a.role, shortKey(a.pubkey), backendText(p, a.backend)]);
  return `Loaded project "${p.config.project.title}" from ${p.tenexDir}
  coordinate  ${p.coordinate}
  owner       ${npubEncode(p.owner.pubkey)}
  relays      ${relayText}
  api         ${api.host}:${portText(api.port)}
  agents      ${p.agents.length} (* = orchestrator)
${formatTable(["SLUG", "ROLE", "PUBKEY", "BACKEND"], agents, "    ")}`;
}

const portText = (port: number) => (port === 0 ? "<any free port>" : String(port));

function backendText(p: LoadedProject, b: LoadedProject["agents"][number]["backend"]): string {
  if (b.type === "mailbox") return "mailbox";
  // Show paths inside .tenex/ as written in agents.json, not as long absolute paths.
  const args = b.command.map((arg) => (arg.startsWith(`${p.tenexDir}/`) ? `./${relative(p.tenexDir, arg)}` : arg));
  return `command: ${args.join(" ")}`;
}
