// One daemon per project directory: two writers on the same logs would interleave records.
// The lock is a pid file created with O_EXCL; a lock left by a dead process is taken over.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync, constants } from "node:fs";

export class ProjectLockedError extends Error {
  override name = "ProjectLockedError";
  constructor(readonly path: string, readonly pid: number) {
    super(`another tenexd (pid ${pid}) is running on this project (lock ${path}); stop it first`);
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Takes the lock; returns a release function (idempotent). */
export function acquirePidLock(path: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try { unlinkSync(path); } catch { /* already gone */ }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(pid) && pid !== process.pid && alive(pid)) throw new ProjectLockedError(path, pid);
      // Stale: its owner died (SIGKILL, crash). Remove and retry once.
      unlinkSync(path);
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
