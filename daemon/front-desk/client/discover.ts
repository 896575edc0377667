// Finding the running daemon of a project: its pid lock names a live process, and it has
// written the API's port and tokens into .tenex/ (the API is up): the owner's token, or a
// mailbox agent's own (which acts as that agent only).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { holderAlive, parseLock } from "../../lock-holder.js";
import { agentTokenFile, PORT_FILE, TOKEN_FILE } from "../api/token.js";

export interface DaemonEndpoint {
  url: string;
  token: string;
  pid: number;
}

const readTrimmed = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return undefined;
  }
};

/** The pid of the daemon holding the project's lock, if it is alive (and not a pid a crash left to another program). */
export function runningDaemonPid(tenexDir: string): number | undefined {
  const text = readTrimmed(join(tenexDir, "daemon.pid"));
  if (text === undefined) return undefined;
  const lock = parseLock(text);
  return holderAlive(lock) ? lock.pid : undefined;
}

/**
 * Where the project's daemon answers, with the owner's token or, given `agent` (a slug), that
 * mailbox agent's; undefined when none runs (or its API is not up yet).
 */
export function discoverDaemon(tenexDir: string, agent?: string): DaemonEndpoint | undefined {
  const pid = runningDaemonPid(tenexDir);
  if (pid === undefined) return undefined;
  const port = Number.parseInt(readTrimmed(join(tenexDir, PORT_FILE)) ?? "", 10);
  const token = readTrimmed(agent === undefined ? join(tenexDir, TOKEN_FILE) : agentTokenFile(tenexDir, agent));
  if (!Number.isInteger(port) || port <= 0 || !token) return undefined;
  return { url: `http://127.0.0.1:${port}`, token, pid };
}
