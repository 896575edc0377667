// File systems an unlucky operator ends up with, made for real (root, CAP_SYS_ADMIN): a small
// tmpfs that fills up, a bind mount that is read-only. A test that needs them fails when this
// machine cannot make them: a check skipped for want of its precondition is not a pass.

import { spawnSync } from "node:child_process";
import { mkdirSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function mount(args: string[]): void {
  const r = spawnSync("mount", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`this test mounts file systems (it needs root or CAP_SYS_ADMIN): mount ${args.join(" ")}: ${r.stderr.trim()}`);
}

/** A tmpfs of `bytes` on `dir` (created if missing). */
export function mountTmpfs(dir: string, bytes: number): void {
  mkdirSync(dir, { recursive: true });
  mount(["-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "tmpfs", dir]);
}

/** `dir` seen read-only from now on (a read-only bind mount over itself). */
export function bindReadOnly(dir: string): void {
  mount(["--bind", dir, dir]);
  mount(["-o", "remount,ro,bind", dir]);
}

export function unmount(dir: string): void {
  spawnSync("umount", ["-l", dir]);
}

/** Fills the file system holding `dir` with a file named `name`; returns its path. */
export function fill(dir: string, name = "filler"): string {
  const free = statfsSync(dir);
  const path = join(dir, name);
  writeFileSync(path, Buffer.alloc(Number(free.bavail) * Number(free.bsize)));
  return path;
}
