// A stand-alone embedded relay process: `node dist/adapters/relay/relay-main.js --port N --db PATH`
// (or RELAY_PORT / RELAY_DB). Prints `READY <url>` once listening so a parent can wait for it;
// tests SIGKILL it and start it again on the same port and database.

import { startEmbeddedRelay } from "./embedded-relay.js";

interface RelayArgs {
  port: number;
  dbPath: string;
}

class UsageError extends Error {
  override name = "UsageError";
}

function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): RelayArgs {
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const portText = flag("--port") ?? env.RELAY_PORT ?? "0";
  const dbPath = flag("--db") ?? env.RELAY_DB;
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer 0-65535, got "${portText}"`);
  }
  if (!dbPath) throw new UsageError("--db PATH (or RELAY_DB) is required: the SQLite file of the relay");
  return { port, dbPath };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), process.env);
  const relay = await startEmbeddedRelay({ port: args.port, dbPath: args.dbPath });
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
