// A program's file as execvp finds it: a name with a slash as it is (relative to the program's
// working directory), else the first executable regular file of that name in PATH's directories.
// The native spawner execs a path, not a name, and child_process looks the name up in the
// *program's* PATH, not the daemon's: this does the same.

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, resolve } from "node:path";

/** The path to exec, or an ErrnoException: ENOENT when nothing was found, EACCES when only non-executable files were. */
export function findProgram(file: string, cwd: string, path: string | undefined): string | NodeJS.ErrnoException {
  if (file === "") return errnoError("ENOENT", file);
  if (file.includes("/")) return resolve(cwd, file);
  let denied = false;
  // An empty entry is the working directory, as for execvp.
  for (const dir of (path ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    const candidate = resolve(cwd, dir, file);
    if (!isFile(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      denied = true;
    }
  }
  return errnoError(denied ? "EACCES" : "ENOENT", file);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false; // missing, or a PATH entry that is not a readable directory: execvp skips it too
  }
}

export function errnoError(code: string, file: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`spawn ${file} ${code}`);
  err.code = code;
  err.syscall = "spawn";
  err.path = file;
  return err;
}
