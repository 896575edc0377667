// The `command` backend: one child process per trigger, the AgentInput as JSON on its stdin, its
// AgentOutput read from stdout (docs/agent-protocol.md). A program that fails, hangs or talks
// nonsense is data for the caller to record: runCommand always resolves, never rejects.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { AgentInput } from "../../../src/agent-input.js";
import { outputRulesFor, parseAgentOutput, type AgentOutput } from "../../../src/agent-output.js";

export interface CommandSpec {
  /** Program and arguments, run without a shell. */
  command: string[];
  cwd: string;
  timeoutMs: number;
  /** Added to the minimal inherited environment (see agentEnv). */
  env?: Record<string, string>;
}

export interface RunCommandOptions {
  /** Stdout bytes beyond which the program is stopped (default 1 MB). */
  maxOutputBytes?: number;
  /** Stderr bytes kept: the last ones, where the errors are (default 64 KB). */
  maxStderrBytes?: number;
  /** Time between SIGTERM and SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** Stops the program (the daemon is shutting down, the conversation was closed…). */
  signal?: AbortSignal;
}

export type CommandErrorKind = "spawn_failed" | "timeout" | "exit_code" | "bad_output" | "output_too_large" | "aborted";

export interface CommandError {
  kind: CommandErrorKind;
  message: string;
}

export type CommandResult =
  | { ok: true; output: AgentOutput; durationMs: number; stderr: string }
  | { ok: false; error: CommandError; durationMs: number; stderr: string };

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_MAX_STDERR = 64 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;

// Only what a program needs to run: the daemon's own environment holds agent secret keys
// (`{ "key": { "env": … } }`), which no agent program may see.
const INHERITED_ENV = ["PATH", "HOME", "LANG"] as const;

export function agentEnv(extra: Record<string, string> = {}, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

export function runCommand(spec: CommandSpec, input: AgentInput, opts: RunCommandOptions = {}): Promise<CommandResult> {
  const clock = stopwatch();
  if (opts.signal?.aborted) return Promise.resolve(clock.fail("aborted", "aborted before it started", ""));
  const [file, ...args] = spec.command;
  if (file === undefined) return Promise.resolve(clock.fail("spawn_failed", "the command is empty", ""));
  let child: ChildProcess;
  try {
    // Its own process group, so a timeout also stops whatever the program started.
    child = spawn(file, args, { cwd: spec.cwd, env: agentEnv(spec.env), stdio: "pipe", detached: true });
  } catch (err) {
    return Promise.resolve(clock.fail("spawn_failed", spawnProblem(file, spec.cwd, err), ""));
  }
  return supervise(child, file, spec, input, opts, clock);
}

type Clock = ReturnType<typeof stopwatch>;

function stopwatch() {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  return {
    ok: (output: AgentOutput, stderr: string): CommandResult => ({ ok: true, output, durationMs: durationMs(), stderr }),
    fail: (kind: CommandErrorKind, message: string, stderr: string): CommandResult =>
      ({ ok: false, error: { kind, message }, durationMs: durationMs(), stderr }),
  };
}

function supervise(
  child: ChildProcess, file: string, spec: CommandSpec, input: AgentInput, opts: RunCommandOptions, clock: Clock,
): Promise<CommandResult> {
  const stdout = new HeadCapture(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
  const stderr = new TailCapture(opts.maxStderrBytes ?? DEFAULT_MAX_STDERR);
  const graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  let stop: CommandError | undefined;
  let killed: NodeJS.Signals | undefined;
  let graceTimer: NodeJS.Timeout | undefined;

  const signalGroup = (sig: NodeJS.Signals) => {
    killed = sig;
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // The group is already gone: nothing left to stop.
    }
  };
  const halt = (kind: CommandErrorKind, message: string) => {
    if (stop) return;
    stop = { kind, message };
    signalGroup("SIGTERM");
    graceTimer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
  };
  const timer = setTimeout(() => halt("timeout", `timed out after ${spec.timeoutMs} ms`), spec.timeoutMs);
  const onAbort = () => halt("aborted", "aborted by the daemon");
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: CommandResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const outcome = (code: number | null, signal: NodeJS.Signals | null): CommandResult => {
      const err = stderr.text();
      if (stop) return clock.fail(stop.kind, `${stop.message}: ${stoppedWith(killed, graceMs)}`, err);
      if (signal !== null) return clock.fail("exit_code", `was killed by ${signal}${lastLine(err)}`, err);
      if (code !== 0) return clock.fail("exit_code", `exited with code ${code}${lastLine(err)}`, err);
      const parsed = parseAgentOutput(stdout.text(), outputRulesFor(input));
      return parsed.ok ? clock.ok(parsed.output, err) : clock.fail("bad_output", parsed.message, err);
    };

    child.on("error", (err) => {
      // After a successful spawn, errors are failed kills: the close event still reports the end.
      if (child.pid === undefined) finish(clock.fail("spawn_failed", spawnProblem(file, spec.cwd, err), ""));
    });
    child.on("close", (code, signal) => finish(outcome(code, signal)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!stdout.add(chunk)) halt("output_too_large", `printed more than ${stdout.max} bytes on stdout`);
    });
    child.stderr!.on("data", (chunk: Buffer) => stderr.add(chunk));
    // A program may exit without reading its input: the broken pipe is not the daemon's problem.
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(`${JSON.stringify(input)}\n`);
  });
}

const stoppedWith = (killed: NodeJS.Signals | undefined, graceMs: number) =>
  killed === "SIGKILL" ? `did not stop on SIGTERM, killed with SIGKILL after ${graceMs} ms` : "stopped with SIGTERM";

function lastLine(stderr: string): string {
  const line = stderr.trimEnd().split("\n").at(-1)?.trim() ?? "";
  if (line === "") return "";
  return `: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`;
}

function spawnProblem(file: string, cwd: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const what = `cannot start ${JSON.stringify(file)}`;
  // spawn reports a missing working directory as a missing program: tell them apart.
  if (code === "ENOENT" && !existsSync(cwd)) return `${what}: the working directory ${cwd} does not exist`;
  if (code === "ENOENT") return `${what}: no such program (neither a path that exists nor a program on PATH)`;
  if (code === "EACCES") return `${what}: permission denied (is it executable?)`;
  return `${what}: ${(err as Error).message}`;
}

/** The first `max` bytes; add() says false once more came. */
class HeadCapture {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(readonly max: number) {}

  add(chunk: Buffer): boolean {
    if (this.size + chunk.length > this.max) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** The last `max` bytes, and how many came before them. */
class TailCapture {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;
  constructor(private readonly max: number) {}

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Trim only when twice over, so a chatty program costs amortised O(1) per byte.
    if (this.size > 2 * this.max) this.trim();
  }

  text(): string {
    this.trim();
    const body = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0 ? `[… ${this.dropped} earlier bytes of stderr dropped]\n${body}` : body;
  }

  private trim(): void {
    const all = Buffer.concat(this.chunks);
    const cut = Math.max(0, all.length - this.max);
    this.dropped += cut;
    this.chunks = [all.subarray(cut)];
    this.size = all.length - cut;
  }
}
