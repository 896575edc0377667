// A stand-alone embedded relay process, two ways:
// - `node dist/adapters/relay/relay-main.js --port N --db PATH [protection flags]` (or RELAY_PORT /
//   RELAY_DB): prints `READY <url>` once listening so a parent can wait for it; tests SIGKILL it
//   and start it again on the same port and database. Open by default (tests use it as "the
//   network"); the flags turn on the protections of the daemon's relay (relay-main-args.ts).
// - `--ipc`: the daemon's own embedded relay (relay-process.ts). The daemon hands it a socket
//   already listening and its options over the IPC channel; it reports ready and its figures
//   back, and exits when the channel closes (the daemon is gone, however it ended).

import type { Server } from "node:net";
import { startEmbeddedRelay, type EmbeddedRelay } from "./embedded-relay.js";
import { parseRelayArgs, UsageError } from "./relay-main-args.js";
import { guardFromWire, type FromRelay, type ToRelay } from "./relay-wire.js";

// How often the figures go to the daemon, when they changed.
const STATS_EVERY_MS = 500;

async function main(): Promise<void> {
  if (process.argv.includes("--ipc")) return serveDaemon();
  const args = parseRelayArgs(process.argv.slice(2), process.env);
  const relay = await startEmbeddedRelay({ port: args.port, dbPath: args.dbPath, guard: args.guard });
  stopOnSignals(relay);
  // Only now: a parent may send SIGTERM the moment it reads this line.
  process.stdout.write(`READY ${relay.url}\n`);
}

function serveDaemon(): void {
  const send = (m: FromRelay) => process.send?.(m);
  if (!process.send) throw new UsageError("--ipc: start me with an IPC channel (the daemon does)");
  // The daemon is gone (stopped, crashed or SIGKILLed): so is its relay.
  process.once("disconnect", () => process.exit(0));
  let relay: EmbeddedRelay | undefined;
  process.on("message", (msg: ToRelay, handle?: Server) => {
    if (msg.type === "start" && handle && !relay) {
      startEmbeddedRelay({ dbPath: msg.dbPath, guard: guardFromWire(msg.guard), listenOn: handle }).then((r) => {
        relay = r;
        stopOnSignals(r);
        send({ type: "ready", url: r.url, port: r.port });
        let last = "";
        const report = () => {
          const stats = JSON.stringify(r.stats());
          if (stats === last) return;
          last = stats;
          send({ type: "stats", stats: JSON.parse(stats) });
        };
        // At once, not only at the first tick: a `tenexd status` right after ready would show the
        // relay without its verifier and limits.
        report();
        setInterval(report, STATS_EVERY_MS).unref();
      }, (err: unknown) => {
        send({ type: "failed", error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
        process.exitCode = 1;
        process.disconnect();
      });
    } else if (msg.type === "stop") {
      void stop(relay);
    }
  });
}

function stopOnSignals(relay: EmbeddedRelay): void {
  process.once("SIGTERM", () => void stop(relay));
  process.once("SIGINT", () => void stop(relay));
}

async function stop(relay: EmbeddedRelay | undefined): Promise<void> {
  try {
    await relay?.close();
    process.exit(0);
  } catch (err) {
    process.stderr.write(`relay close failed: ${String(err)}\n`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
