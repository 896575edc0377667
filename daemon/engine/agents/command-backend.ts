// The `command` backend: one child process per trigger, the AgentInput as JSON on its stdin, its
// AgentOutput read from stdout (docs/agent-protocol.md). A program that fails, hangs or talks
// nonsense is data for the caller to record: runCommand always resolves, never rejects. The
// process may be started before its input exists (startCommand): see StartedCommand.

import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { AgentInput } from "../../../src/agent-input.js";
import { outputRulesFor, parseAgentOutput, type AgentOutput } from "../../../src/agent-output.js";
import type { AgentProcess, ProgramEnd, SpawnProgram } from "../../../adapters/spawn/agent-process.js";
import { defaultSpawner } from "../../../adapters/spawn/spawner-choice.js";

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
  /** How the program is started (default: the spawner chosen at start, adapters/spawn/spawner-choice.ts). */
  spawn?: SpawnProgram;
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

/**
 * A program started ahead of its input: its trigger is staged but not yet durable, and the
 * program's start (the spawn, and its runtime loading) runs beside the log's sync. It is handed
 * its input once the trigger is durable (`runCommand` with it), or cancelled if that never
 * happens.
 */
export interface StartedCommand {
  /** Hands the program its input and supervises it to its end; its timeout runs from here. Once. */
  run(input: AgentInput, signal?: AbortSignal): Promise<CommandResult>;
  /** It gets no input: its stdin closes empty and its process group is stopped. Nothing once run. */
  cancel(): void;
}

export type StartOptions = Omit<RunCommandOptions, "signal">;

/** Runs the program (`started` early, or now) on `input`. */
export function runCommand(spec: CommandSpec, input: AgentInput, opts: RunCommandOptions = {}, started?: StartedCommand): Promise<CommandResult> {
  if (opts.signal?.aborted) {
    started?.cancel();
    return Promise.resolve(stopwatch().fail("aborted", "aborted before it started", ""));
  }
  return (started ?? startCommand(spec, opts)).run(input, opts.signal);
}

/** Spawns the program and captures what it prints; its input comes with `run`. */
export function startCommand(spec: CommandSpec, opts: StartOptions = {}): StartedCommand {
  const [file, ...args] = spec.command;
  if (file === undefined) return notStarted("the command is empty");
  let child: AgentProcess;
  try {
    // In its own session and process group, so a timeout also stops whatever the program started.
    child = (opts.spawn ?? defaultSpawner().spawn)({ file, args, cwd: spec.cwd, env: agentEnv(spec.env) });
  } catch (err) {
    return notStarted(spawnProblem(file, spec.cwd, err));
  }
  return new Supervised(child, file, spec, opts);
}

function notStarted(message: string): StartedCommand {
  return { run: () => Promise.resolve(stopwatch().fail("spawn_failed", message, "")), cancel: () => undefined };
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

/** One spawned program, watched from its spawn: what it prints before its input is kept too. */
class Supervised implements StartedCommand {
  private readonly stdout: HeadCapture;
  private readonly stderr: TailCapture;
  private readonly graceMs: number;
  private stop: CommandError | undefined;
  private killed: NodeJS.Signals | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private ending: ProgramEnd | undefined;
  private onEnd: (() => void) | undefined;
  private given = false;

  constructor(private readonly child: AgentProcess, private readonly file: string, private readonly spec: CommandSpec, opts: StartOptions) {
    this.stdout = new HeadCapture(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
    this.stderr = new TailCapture(opts.maxStderrBytes ?? DEFAULT_MAX_STDERR);
    this.graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    child.onEnd((end) => this.end(end));
    child.stdout.on("data", (chunk: Buffer) => {
      if (!this.stdout.add(chunk)) this.halt("output_too_large", `printed more than ${this.stdout.max} bytes on stdout`);
    });
    child.stderr.on("data", (chunk: Buffer) => this.stderr.add(chunk));
    // A program may exit without reading its input: the broken pipe is not the daemon's problem.
    child.stdin.on("error", () => undefined);
  }

  run(input: AgentInput, signal?: AbortSignal): Promise<CommandResult> {
    if (this.given) throw new Error("a started command runs once");
    this.given = true;
    const clock = stopwatch();
    const timer = setTimeout(() => this.halt("timeout", `timed out after ${this.spec.timeoutMs} ms`), this.spec.timeoutMs);
    const onAbort = () => this.halt("aborted", "aborted by the daemon");
    signal?.addEventListener("abort", onAbort, { once: true });
    this.child.stdin.end(`${JSON.stringify(input)}\n`);
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(this.outcome(clock, input));
      };
      if (this.ending) finish();
      else this.onEnd = finish;
    });
  }

  cancel(): void {
    if (this.given) return;
    this.given = true;
    this.child.stdin.end();
    this.halt("aborted", "its trigger was not made durable");
  }

  private end(ending: ProgramEnd): void {
    if (this.ending) return;
    this.ending = ending;
    clearTimeout(this.graceTimer);
    this.onEnd?.();
  }

  private halt(kind: CommandErrorKind, message: string): void {
    if (this.stop || this.ending) return;
    this.stop = { kind, message };
    this.signalGroup("SIGTERM");
    this.graceTimer = setTimeout(() => this.signalGroup("SIGKILL"), this.graceMs);
  }

  private signalGroup(sig: NodeJS.Signals): void {
    this.killed = sig;
    try {
      process.kill(-this.child.pid!, sig);
    } catch {
      // The group is already gone: nothing left to stop.
    }
  }

  private outcome(clock: Clock, input: AgentInput): CommandResult {
    const ending = this.ending!;
    if ("error" in ending) return clock.fail("spawn_failed", spawnProblem(this.file, this.spec.cwd, ending.error), "");
    const err = this.stderr.text();
    if (this.stop) return clock.fail(this.stop.kind, `${this.stop.message}: ${stoppedWith(this.killed, this.graceMs)}`, err);
    if (ending.signal !== null) return clock.fail("exit_code", `was killed by ${ending.signal}${lastLine(err)}`, err);
    if (ending.code !== 0) return clock.fail("exit_code", `exited with code ${ending.code}${lastLine(err)}`, err);
    const parsed = parseAgentOutput(this.stdout.text(), outputRulesFor(input));
    return parsed.ok ? clock.ok(parsed.output, err) : clock.fail("bad_output", parsed.message, err);
  }
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
