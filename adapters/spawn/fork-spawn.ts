// Programs started with Node's child_process: libuv forks the daemon (copying its page tables,
// ~2 ms at 100 MB resident) and execs. The fallback when the native spawner did not build
// (spawner-choice.ts).

import { spawn } from "node:child_process";
import type { AgentProcess, ProgramEnd, ProgramRequest } from "./agent-process.js";

export function forkSpawn(req: ProgramRequest): AgentProcess {
  // detached: its own session and process group, so a timeout also stops what the program started.
  const child = spawn(req.file, req.args, { cwd: req.cwd, env: req.env, stdio: "pipe", detached: true });
  let listener: ((end: ProgramEnd) => void) | undefined;
  let ended: ProgramEnd | undefined;
  const end = (e: ProgramEnd) => {
    if (ended) return;
    ended = e;
    listener?.(e);
  };
  child.on("error", (err) => {
    // After a successful spawn, errors are failed kills: the close event still reports the end.
    if (child.pid === undefined) end({ error: err as NodeJS.ErrnoException });
  });
  child.on("close", (code, signal) => end({ code, signal }));
  return {
    pid: child.pid,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    onEnd(l) {
      listener = l;
      if (ended) l(ended);
    },
  };
}
