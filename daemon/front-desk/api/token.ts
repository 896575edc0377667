// The API's bearer tokens and where clients find the daemon: `.tenex/daemon.token` (the owner's,
// random, new at every start, mode 0600: only the project's owner can read it), one token per
// mailbox agent in `.tenex/tokens/<slug>.token` (the same), and `.tenex/daemon.port`.

import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
// The rule alone: the CLI's client reads token files, and agents.json's schemas (zod) are not its business.
import { AGENT_SLUG } from "../../../src/agent-slug.js";

export const TOKEN_FILE = "daemon.token";
export const PORT_FILE = "daemon.port";
export const TOKENS_DIR = "tokens";

export const apiFiles = (tenexDir: string) => ({
  token: join(tenexDir, TOKEN_FILE), port: join(tenexDir, PORT_FILE), tokens: join(tenexDir, TOKENS_DIR),
});

/** `.tenex/tokens/<slug>.token`; the slug is checked before it becomes part of a path. */
export function agentTokenFile(tenexDir: string, slug: string): string {
  if (!AGENT_SLUG.test(slug)) throw new Error(`invalid agent slug ${JSON.stringify(slug).slice(0, 80)}: 1-64 lowercase letters, digits or "-"`);
  return join(tenexDir, TOKENS_DIR, `${slug}.token`);
}

/** Writes each agent's token (the directory 0700, each file 0600), after removing any left from before. */
export function writeAgentTokens(tenexDir: string, tokens: ReadonlyMap<string, string>): string[] {
  const dir = join(tenexDir, TOKENS_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) if (name.endsWith(".token")) removeFile(join(dir, name));
  return [...tokens].map(([slug, token]) => {
    const file = agentTokenFile(tenexDir, slug);
    writePrivateFile(file, `${token}\n`);
    return file;
  });
}

export const newToken = (): string => randomBytes(32).toString("hex");

/** Written aside then renamed: a reader sees the old file or the whole new one, never half. */
export function writePrivateFile(path: string, content: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, constants.O_CREAT | constants.O_TRUNC | constants.O_WRONLY, 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The mode given to open is filtered by the umask; this is not.
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The token from an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}
