// Who holds a pid lock (`.tenex/daemon.pid`, pid-lock.ts). The lock holds its owner's pid and,
// where /proc tells it, the time its owner started (clock ticks after boot, field 22 of
// /proc/<pid>/stat). A live pid alone does not prove the owner lives: after a crash the pid may be
// another program's (in a container restarted by a supervisor, the same low pids go round
// again), and that program would hold the project forever. A lock whose pid lives but started at
// another time is stale. Without /proc (or with a lock written without the start time), a live
// pid is taken for the owner, as before. Only node:fs here: the CLI's every read loads this.

import { readFileSync } from "node:fs";

export interface LockContent {
  /** NaN when the content is not a pid (a lock an older tenexd died writing). */
  pid: number;
  start?: string;
}

/** The start time of process `pid`, as /proc says it; undefined where it cannot be read. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[22 - 3];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** What this process writes into a lock it takes. */
export function lockText(pid: number): string {
  const start = startTimeOf(pid);
  return start === undefined ? `${pid}\n` : `${pid} ${start}\n`;
}

export function parseLock(text: string): LockContent {
  const [pid, start] = text.trim().split(" ");
  const parsed = Number.parseInt(pid ?? "", 10);
  return start !== undefined && /^\d+$/.test(start) ? { pid: parsed, start } : { pid: parsed };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the process the lock names is alive and is the one that wrote it. */
export function holderAlive(lock: LockContent): boolean {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0 || !isAlive(lock.pid)) return false;
  if (lock.start === undefined) return true;
  const now = startTimeOf(lock.pid);
  return now === undefined || now === lock.start;
}
