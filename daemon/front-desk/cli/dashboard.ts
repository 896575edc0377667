// `tenexd dashboard`: the Director's web page (docs/dashboard.md). With the daemon running, asks
// it for a one-time login link and prints it (and opens a browser where one exists). With no
// daemon, serves the read-only views itself from the index, read-only like the offline CLI
// reads, until SIGINT or SIGTERM.

import { spawn, spawnSync } from "node:child_process";
import type { Command, CommandContext } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { flag, intOpt, opt } from "../../cli/support/options.js";
import { loadProject } from "../../config/index.js";
import { openOfflineReads } from "../../offline-reads.js";
import type { CommandPort, EnginePorts } from "../../../src/ports.js";
import { ApiServer } from "../api/server.js";
import { ApiError } from "../api/errors.js";
import { daemonClient } from "./support/sources.js";

export const dashboard: Command = {
  name: "dashboard",
  usage: `Usage: tenexd dashboard [--project DIR] [--json] [--no-open] [--port N]

Prints the dashboard's address with a one-time login code (it works once, for 2 minutes):
opening it logs the browser in with a session cookie and removes the code from the address.
Opens it in a browser when \`xdg-open\` and a display are there, unless --no-open.

With the daemon running, the daemon serves the dashboard on its API port (live: it follows
the daemon's changes as they happen), and this command ends once the link is printed.
With no daemon, this command serves the read-only views itself, from the index opened
read-only (the page says so and its actions are disabled), until SIGINT or SIGTERM.

  --no-open  Print the link only
  --port N   The port of the read-only dashboard (no daemon running; default: any free port)`,
  options: { "no-open": { type: "boolean" }, port: { type: "string" } },
  async run(ctx) {
    return cli(async () => {
      const client = daemonClient(ctx);
      if (client) {
        if (opt(ctx, "port") !== undefined) process.stderr.write("(--port is for the read-only dashboard: the running daemon serves it on its API port)\n");
        const { url } = await client.dashboardLogin();
        announce(ctx, url, false);
        return EXIT.OK;
      }
      return serveOffline(ctx, intOpt(ctx, "port", 0));
    });
  },
};

function announce(ctx: CommandContext, url: string, readOnly: boolean): void {
  if (ctx.json) ctx.stdout.write(`${JSON.stringify({ url, readOnly })}\n`);
  else {
    ctx.stdout.write(`${readOnly ? "The daemon is not running: read-only dashboard, from the index.\n" : ""}`
      + `Open the dashboard (the login code in it works once, for 2 minutes):\n  ${url}\n`);
  }
  if (!flag(ctx, "no-open")) openBrowser(url);
}

/** xdg-open when it and a display are there; never required. */
function openBrowser(url: string): void {
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  if (spawnSync("sh", ["-c", "command -v xdg-open"], { stdio: "ignore" }).status !== 0) return;
  const child = spawn("xdg-open", [url], { stdio: "ignore", detached: true });
  child.on("error", () => undefined);
  child.unref();
}

const readOnlyError = (what: string) => new ApiError(503, "read_only", `${what} needs the running daemon: the dashboard is read-only (start it with \`tenexd start\`)`);

async function serveOffline(ctx: CommandContext, port: number): Promise<number> {
  const project = await loadProject(ctx.projectDir);
  const reads = openOfflineReads(project);
  const commands: CommandPort = {
    inConversation: () => Promise.reject(readOnlyError("changing a conversation")),
    publish: () => Promise.reject(readOnlyError("posting")),
    stopRun: () => Promise.reject(readOnlyError("stopping a run")),
  };
  const ports: EnginePorts = {
    reads: {
      ...reads,
      status: () => Promise.reject(new ApiError(503, "daemon_not_running", "the daemon is not running: no live status (read-only dashboard)")),
      changes: () => () => undefined,
    },
    commands,
  };
  const logger = ctx.logger();
  const server = await ApiServer.start(ports, project, logger, { offline: { port } });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const { code } = server.sessions.newCode();
    announce(ctx, `http://127.0.0.1:${server.port}/login#code=${code}`, true);
    await new Promise<void>((done) => stop.signal.addEventListener("abort", () => done(), { once: true }));
  } finally {
    await server.stop();
  }
  return EXIT.OK;
}
