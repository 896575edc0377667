// A stand-alone embedded relay process: `node dist/adapters/relay/relay-main.js --port N --db PATH`
// (or RELAY_PORT / RELAY_DB). Prints `READY <url>` once listening so a parent can wait for it;
// tests SIGKILL it and start it again on the same port and database. Open by default (tests use
// it as "the network"); the flags turn on the protections the daemon's embedded relay has
// (relay-main-args.ts).

import { startEmbeddedRelay } from "./embedded-relay.js";
import { parseRelayArgs, UsageError } from "./relay-main-args.js";

async function main(): Promise<void> {
  const args = parseRelayArgs(process.argv.slice(2), process.env);
  const relay = await startEmbeddedRelay({ port: args.port, dbPath: args.dbPath, guard: args.guard });
  const stop = () => {
    relay.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`relay close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // Only now: a parent may send SIGTERM the moment it reads this line.
  process.stdout.write(`READY ${relay.url}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
