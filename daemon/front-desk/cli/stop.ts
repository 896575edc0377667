// `tenexd stop`: asks the project's daemon to stop (its API, with the owner's token) and waits
// until it has released the project's lock, so that `reindex`, `import` or another `start` can
// follow at once. Nothing running is no error: a stop that finds nothing to stop has done its job.

import { join } from "node:path";
import type { Command, CommandContext } from "../../cli/command.js";
import { CliError, EXIT } from "../../cli/errors.js";
import { cli } from "../../cli/support/errors.js";
import { intOpt } from "../../cli/support/options.js";
import { TenexClient } from "../client/client.js";
import { discoverDaemon, runningDaemonPid } from "../client/discover.js";
import { DaemonUnreachableError } from "../client/errors.js";

const POLL_MS = 50;

export const stop: Command = {
  name: "stop",
  usage: `Usage: tenexd stop [--project DIR] [--json] [--timeout SECONDS]

Asks the daemon running on the project to stop, as SIGTERM would: it stops its agents' runs,
finishes what its queues hold, makes its logs durable, closes its index and releases the
project's lock. Waits until it has (--timeout, default 30 s) and says how long it took. With no
daemon running it says so and exits 0. It asks through the daemon's local API with the owner's
token (.tenex/daemon.token) and never signals a process: after a crash, the pid in the project's
lock may be another program's. Exits 1 when the lock's holder does not answer (a daemon still
starting, a reindex or an import, or after a crash another program with the dead daemon's pid)
or the daemon has not stopped in time.

  --timeout SECONDS  How long to wait for the daemon to stop (default 30)`,
  options: { timeout: { type: "string" } },
  async run(ctx) {
    return cli(async () => {
      const timeoutMs = intOpt(ctx, "timeout", 30, 1) * 1000;
      const tenexDir = join(ctx.projectDir, ".tenex");
      const holder = runningDaemonPid(tenexDir);
      if (holder === undefined) {
        say(ctx, { stopped: false, running: false }, `no tenexd is running on ${ctx.projectDir}`);
        return EXIT.OK;
      }
      const silent = (why: string) => new CliError(`pid ${holder} holds the project's lock but does not answer (${why}): a daemon still starting, a reindex or an import (try again once it is done), or, after a crash, another program that now has that pid (then remove ${join(tenexDir, "daemon.pid")})`, "daemon_unreachable");
      const endpoint = discoverDaemon(tenexDir);
      if (!endpoint) throw silent("it has no API listening");
      const started = Date.now();
      let pid: number;
      try {
        ({ pid } = await new TenexClient(endpoint).stop());
      } catch (err) {
        throw err instanceof DaemonUnreachableError ? silent(err.message) : err;
      }
      // Stopped once the lock is no longer this daemon's: released, or its process gone.
      while (runningDaemonPid(tenexDir) === pid) {
        if (Date.now() - started > timeoutMs) {
          throw new CliError(`tenexd (pid ${pid}) is stopping but has not stopped after ${timeoutMs / 1000} s (\`tenexd status\` shows what it is doing); wait, or raise --timeout`, "stop_timeout");
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const ms = Date.now() - started;
      say(ctx, { stopped: true, pid, ms }, `stopped tenexd (pid ${pid}) in ${ms} ms`);
      return EXIT.OK;
    });
  },
};

// No "source" in its JSON, unlike the reads': nothing here is answered from the daemon or the index.
const say = (ctx: CommandContext, data: object, text: string) => ctx.stdout.write(ctx.json ? `${JSON.stringify(data)}\n` : `${text}\n`);
