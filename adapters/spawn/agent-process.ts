// What the command backend (daemon/engine/agents/command-backend.ts) needs of a started program,
// whichever way it was started: its pid (its process group's, too: it leads its own session),
// its three pipes, and one notice of its end, once it has exited and its stdout and stderr have
// closed (as child_process's "close").

import type { Readable, Writable } from "node:stream";

export interface ProgramRequest {
  /** The program: a path (relative to `cwd` when it has a slash) or a name looked up on env.PATH. */
  file: string;
  args: readonly string[];
  cwd: string;
  /** The program's whole environment. */
  env: Readonly<Record<string, string>>;
}

/** How it ended: its exit, or why it never started (reported after the spawn returned). */
export type ProgramEnd = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

export interface AgentProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Called once, with how it ended. */
  onEnd(listener: (end: ProgramEnd) => void): void;
}

/** Starts a program in its own session; throws an ErrnoException (ENOENT, EACCES…) when it cannot. */
export type SpawnProgram = (req: ProgramRequest) => AgentProcess;
