// One daemon per project directory: two writers on the same logs would interleave records.
// The lock is `.tenex/daemon.pid`, holding its owner's pid and start time (lock-holder.ts: a pid
// a crash left to another program is not an owner). It appears whole or not at all: it is
// a file written aside and hard-linked into place (link(2) fails if the name exists). A lock
// whose owner died (SIGKILL, crash) is taken over, and that is where several starters race:
// removing it and creating a new one are two steps, and a taker that checked the old lock could
// remove the new one. So a takeover never removes the lock: it renames its own file over it,
// and only the taker that holds the claim on that stale lock (a name of its own, also created by
// link) may do so. A claim whose taker died too is passed over by claiming the next level.
// `ProjectLockedError` names a live owner; its lock is never touched.

import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, linkSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { holderAlive, isAlive, lockText, parseLock } from "./lock-holder.js";

export class ProjectLockedError extends Error {
  override name = "ProjectLockedError";
  constructor(readonly path: string, readonly pid: number) {
    super(`another tenexd (pid ${pid}) is running on this project (lock ${path}); stop it first`);
  }
}

const ATTEMPTS = 200;
// Claims whose takers all died: more than a few in a row means something else is wrong.
const CLAIM_LEVELS = 8;

/** Locks this process holds: its own pid in a lock file it does not hold means a dead earlier process. */
const held = new Set<string>();

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

interface LockFile {
  ino: number;
  /** NaN when the content is not a pid (a lock an older tenexd died writing). */
  pid: number;
  /** Its owner's start time (lock-holder.ts), when the lock says it. */
  start?: string;
}

/** The lock file as it is now: its inode, pid and owner's start time, read from one open file; undefined when there is none. */
function readLock(path: string): LockFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (err) {
    if (code(err) === "ENOENT") return undefined;
    throw err;
  }
  try {
    const buf = Buffer.alloc(64);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { ino: fstatSync(fd).ino, ...parseLock(buf.toString("utf8", 0, n)) };
  } finally {
    closeSync(fd);
  }
}

// Our own pid in a lock we do not hold: an earlier process of ours that died (pid reuse, pid 1 in a container).
const ownedByLiveOther = (l: LockFile) => l.pid !== process.pid && holderAlive(l);

/** Creates `name` as a new link to `file`; false when the name exists. */
function linkNew(file: string, name: string): boolean {
  try {
    linkSync(file, name);
    return true;
  } catch (err) {
    if (code(err) === "EEXIST") return false;
    throw err;
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Sleeps the thread (the lock is taken at start, before anything else runs). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Replaces the stale lock `stale` with `mine` if this process wins the claim on it. False when
 * another taker holds the claim, or the lock is no longer that stale one: look again.
 */
function takeOver(path: string, stale: LockFile, mine: string): boolean {
  const claims: string[] = [];
  try {
    for (let level = 0; level < CLAIM_LEVELS; level++) {
      const claim = `${path}.takeover-${stale.ino}-${level}`;
      if (linkNew(mine, claim)) {
        claims.push(claim);
        // Under the claim nobody else may replace this lock: check it is still the stale one.
        const now = readLock(path);
        if (!now || now.ino !== stale.ino || ownedByLiveOther(now)) return false;
        renameSync(mine, path);
        return true;
      }
      const taker = readLock(claim);
      if (!taker) return false; // its taker just finished: look at the lock again
      if (holderAlive(taker)) return false; // a live taker is at it
      claims.push(claim); // its taker died: the claim is void, go one level up
    }
    throw new Error(`cannot take over the stale lock ${path}: ${CLAIM_LEVELS} takeovers of it died; remove ${path} and ${path}.takeover-* by hand`);
  } finally {
    // Whether it won or not, this taker is done with these claims (the dead ones' included).
    for (const c of claims) unlinkQuiet(c);
  }
}

/** Takes the lock; returns a release function (idempotent). ProjectLockedError when a live process holds it. */
export function acquirePidLock(path: string): () => void {
  if (held.has(path)) throw new ProjectLockedError(path, process.pid);
  const mine = `${path}.${process.pid}-${randomBytes(6).toString("hex")}`;
  const fd = openSync(mine, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  try {
    writeSync(fd, lockText(process.pid));
  } finally {
    closeSync(fd);
  }
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (linkNew(mine, path)) return holding(path);
      const current = readLock(path);
      if (!current) continue; // released meanwhile
      if (ownedByLiveOther(current)) throw new ProjectLockedError(path, current.pid);
      if (takeOver(path, current, mine)) return holding(path);
      pause(1 + Math.floor(Math.random() * 10));
    }
    throw new Error(`could not take the lock ${path}: it kept changing hands`);
  } finally {
    unlinkQuiet(mine); // linked into place, renamed over the lock, or not needed
  }
}

/** Removes what takers that died left beside the lock: their own files and their claims. */
function sweep(path: string): void {
  const prefix = `${basename(path)}.`;
  for (const name of readdirSync(dirname(path))) {
    if (!name.startsWith(prefix)) continue;
    const file = join(dirname(path), name);
    // A taker's own file is named after it (its content may not be written yet); a claim is
    // complete from the start (a link to such a file).
    const own = /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
    if (own) {
      if (!isAlive(Number(own[1]))) unlinkQuiet(file);
    } else if (/^takeover-\d+-\d+$/.test(name.slice(prefix.length))) {
      const claim = readLock(file);
      if (claim && !holderAlive(claim)) unlinkQuiet(file);
    }
  }
}

function holding(path: string): () => void {
  held.add(path);
  sweep(path);
  const ino = readLock(path)!.ino;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(path);
    // Only our own lock: nobody can have replaced it while we live, but never remove another's.
    const now = readLock(path);
    if (now?.ino === ino && now.pid === process.pid) unlinkQuiet(path);
  };
}
