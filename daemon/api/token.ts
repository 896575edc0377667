// The API's bearer token and where the CLI finds the daemon: `.tenex/daemon.token` (random,
// new at every start, mode 0600: only the project's owner can read it) and `.tenex/daemon.port`.

import { randomBytes, createHash, timingSafeEqual } from "node:crypto";
import { chmodSync, closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

export const TOKEN_FILE = "daemon.token";
export const PORT_FILE = "daemon.port";

export const apiFiles = (tenexDir: string) => ({ token: join(tenexDir, TOKEN_FILE), port: join(tenexDir, PORT_FILE) });

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

// Both sides hashed first: equal lengths for timingSafeEqual, and no early exit on length.
const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Constant-time comparison of a presented token with the expected one. */
export const tokenMatches = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected));

/** The token from an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}
