// Programs started with posix_spawn (native/spawn/spawn.c, compiled at install): the daemon's
// address space is not copied, so starting a program takes ~0.5 ms of the main thread instead of
// fork's ~2 ms, and the daemon's other threads (the log's syncs, the verifier) do not stall
// meanwhile (docs/performance.md, "Agents started without a fork"). The module is optional: when
// it did not build, `loadNativeSpawn` says why and the daemon uses child_process (fork-spawn.ts).

import { Socket } from "node:net";
import { constants } from "node:os";
import { loadAddon } from "../native/load-addon.js";
import type { AgentProcess, ProgramEnd, ProgramRequest, SpawnProgram } from "./agent-process.js";
import { errnoError, findProgram } from "./find-program.js";

interface Addon {
  /** [pid, stdin, stdout, stderr] (the daemon's ends), or -errno. onExit runs on this thread. */
  spawn(path: string, argv: string[], envp: string[], cwd: string, onExit: (code: number | null, signal: number | null) => void): number[] | number;
}

export function loadNativeSpawn(): { spawn: SpawnProgram } | { reason: string } {
  const addon = loadAddon<Addon>("spawn");
  return "reason" in addon ? addon : { spawn: (req) => nativeSpawn(addon, req) };
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

function nativeSpawn(addon: Addon, req: ProgramRequest): AgentProcess {
  refuseNul(req);
  const path = findProgram(req.file, req.cwd, req.env.PATH);
  if (typeof path !== "string") throw path;
  const envp = Object.entries(req.env).map(([k, v]) => `${k}=${v}`);
  let started: NativeProcess | undefined;
  // The exit is reported through the event loop, never before this call returns.
  const r = addon.spawn(path, [req.file, ...req.args], envp, req.cwd, (code, signal) => started!.exited(code, signal));
  if (typeof r === "number") throw errnoError(ERRNO_NAMES.get(-r) ?? `errno ${-r}`, req.file);
  const [pid, stdin, stdout, stderr] = r as [number, number, number, number];
  started = new NativeProcess(pid, stdin, stdout, stderr);
  return started;
}

// C strings end at a NUL: "a\0b" would reach the program as "a". Refused, as child_process refuses it.
function refuseNul(req: ProgramRequest): void {
  const named: [string, string][] = [
    ["file", req.file], ["cwd", req.cwd], ...req.args.map((a, i): [string, string] => [`args[${i}]`, a]),
    ...Object.entries(req.env).flatMap(([k, v]): [string, string][] => [[`env name ${k}`, k], [`env['${k}']`, v]]),
  ];
  for (const [what, value] of named) {
    if (!value.includes("\0")) continue;
    const err: NodeJS.ErrnoException = new TypeError(`${what} must be a string without null bytes`);
    err.code = "ERR_INVALID_ARG_VALUE";
    throw err;
  }
}

class NativeProcess implements AgentProcess {
  readonly stdin: Socket;
  readonly stdout: Socket;
  readonly stderr: Socket;
  private exit: ProgramEnd | undefined;
  private open = 2;
  private listener: ((end: ProgramEnd) => void) | undefined;
  private ended: ProgramEnd | undefined;

  constructor(readonly pid: number, stdin: number, stdout: number, stderr: number) {
    this.stdin = new Socket({ fd: stdin, readable: false, writable: true });
    this.stdout = new Socket({ fd: stdout, readable: true, writable: false });
    this.stderr = new Socket({ fd: stderr, readable: true, writable: false });
    for (const out of [this.stdout, this.stderr]) {
      out.on("close", () => {
        this.open--;
        this.settle();
      });
      // A read error ends the stream as EOF would: the exit still reports the end.
      out.on("error", () => undefined);
    }
  }

  exited(code: number | null, signal: number | null): void {
    this.exit = { code, signal: signal === null ? null : (SIGNAL_NAMES.get(signal) ?? null) };
    // As child_process does: nothing more will be read from its stdin.
    this.stdin.destroy();
    this.settle();
  }

  onEnd(listener: (end: ProgramEnd) => void): void {
    this.listener = listener;
    if (this.ended) listener(this.ended);
  }

  private settle(): void {
    if (this.ended || !this.exit || this.open > 0) return;
    this.ended = this.exit;
    this.listener?.(this.ended);
  }
}
