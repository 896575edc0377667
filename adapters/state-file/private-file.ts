// Files and directories of a project's data, readable by their owner only. The mode given at
// creation is filtered by the umask, which can only take bits away: 0600 and 0700 stay private
// whatever the umask (000 included).

import { closeSync, constants, lstatSync, openSync, readdirSync, chmodSync } from "node:fs";
import { join } from "node:path";

export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;

/** True when group or others have any permission on it. */
export const openToOthers = (mode: number): boolean => (mode & 0o077) !== 0;

/**
 * Creates an empty file of mode 0600 unless one exists. For files another library creates
 * (SQLite's): it then opens this one, and gives its -wal and -shm files the same mode.
 */
export function ensurePrivateFile(path: string): void {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

export interface OpenEntry {
  path: string;
  mode: number;
}

/**
 * Takes group and other permissions away from `dir`, the entries in it, and everything under
 * each subdirectory that was open to others (what a umask or an older tenexd left open). A
 * private subdirectory is not walked: nobody else can reach what it holds, and a start must not
 * stat every conversation log. Returns what it changed, and what it could not (another user's
 * file, say), with why: the caller reports those and goes on.
 */
export function makePrivate(dir: string): { changed: OpenEntry[]; failed: { path: string; error: string }[] } {
  const changed: OpenEntry[] = [];
  const failed: { path: string; error: string }[] = [];
  const visit = (path: string, top: boolean) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    const open = openToOthers(st.mode);
    if (open) {
      try {
        chmodSync(path, st.mode & 0o700);
        changed.push({ path, mode: st.mode & 0o777 });
      } catch (err) {
        failed.push({ path, error: (err as Error).message });
      }
    }
    if (st.isDirectory() && (top || open)) for (const name of readdirSync(path)) visit(join(path, name), false);
  };
  visit(dir, true);
  return { changed, failed };
}

/** Every entry under `dir` (itself included) open to others, walking all of it. */
export function entriesOpenToOthers(dir: string): OpenEntry[] {
  const found: OpenEntry[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (openToOthers(st.mode)) found.push({ path, mode: st.mode & 0o777 });
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}
