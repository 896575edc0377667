// Without relays configured the daemon runs its own (docs/architecture.md, "The embedded
// relay"): in a process of its own, started first thing after the pid lock so that it boots
// while the daemon recovers, unless `embeddedRelay.inProcess`.

import { join } from "node:path";
import type { EmbeddedRelay } from "../../../adapters/relay/embedded-relay.js";
import { ensurePrivateFile } from "../../../adapters/state-file/private-file.js";
import type { LoadedProject } from "../../config/index.js";
import type { Logger } from "../../logger.js";
import { embeddedRelayGuard } from "./embedded-relay-guard.js";

/** The high-water mark key of the embedded relay, whose port may change between starts. */
export const EMBEDDED_MARK = "embedded";

/** Keys of the relays' high-water marks: the embedded relay's port may change between starts. */
export const relayMarkKeys = (project: LoadedProject): string[] =>
  project.config.relays.length === 0 ? [EMBEDDED_MARK] : [...project.config.relays];

/** The embedded relay starting, or undefined when relays are configured. `onExit`: its process died and is started again. */
export function startEmbeddedRelay(project: LoadedProject, logger: Logger, onExit: (detail: string) => void): Promise<EmbeddedRelay> | undefined {
  const { config, tenexDir } = project;
  if (config.relays.length > 0) return undefined;
  const dbPath = join(tenexDir, "relay.sqlite");
  // Created private here: the relay's library would make it 0644 (its -wal and -shm follow it).
  ensurePrivateFile(dbPath);
  const opts = { host: config.embeddedRelay.host, port: config.embeddedRelay.port, dbPath, guard: embeddedRelayGuard(project) };
  const relayLogger = logger.child({ component: "relay" });
  // Loaded only when used: the relay implementation is a good part of a process's memory.
  const starting = config.embeddedRelay.inProcess
    ? import("../../../adapters/relay/embedded-relay.js").then((m) => m.startEmbeddedRelay(opts))
    : import("../../../adapters/relay/relay-process.js").then((m) => m.startRelayProcess({
      ...opts,
      onLog: (line) => relayLogger.warn("relay process", { line }),
      onExit,
    }));
  // Awaited when the relays are connected; a start that fails before then must not be an unhandled rejection.
  starting.catch(() => undefined);
  return starting;
}
