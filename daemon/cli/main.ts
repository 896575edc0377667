// tenexd's entry point: parses global flags, finds the command, runs it, reports errors.

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { terminalSafe } from "../../src/terminal-text.js";
import { createLogger, type LogLevel } from "../logger.js";
import type { Command, CommandContext, OptionSpecs, OptionValues, Output } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { classify, EXIT, usageError } from "./errors.js";
import { exitWhenFlushed, onReaderGone } from "./exit.js";
import { commandHelp, globalHelp } from "./help.js";
import { packageVersion } from "./package-root.js";

const GLOBAL_OPTIONS = {
  project: { type: "string" },
  json: { type: "boolean" },
  "log-json": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} satisfies OptionSpecs;

export interface MainIo {
  stdout: Output;
  stderr: Output & { isTTY?: boolean };
  cwd: string;
}

const defaultIo = (): MainIo => ({ stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });

/**
 * The process's entry point (bin/tenexd.js): runs the command, then exits once its output is out.
 * `daemon`: the command is `start`, which keeps running when nobody reads its stdout any more.
 */
export async function runCli(argv: readonly string[], daemon: boolean): Promise<never> {
  onReaderGone(daemon);
  return exitWhenFlushed(await main(argv));
}

/** Runs one CLI invocation; resolves with the process exit code. */
export async function main(argv: readonly string[], io: MainIo = defaultIo()): Promise<number> {
  const json = argv.includes("--json");
  try {
    return await dispatch([...argv], io);
  } catch (err) {
    const e = classify(err);
    if (json) io.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
    else io.stderr.write(terminalSafe(`tenexd: ${e.message}\n`));
    if (e.stack !== undefined) io.stderr.write(terminalSafe(`${e.stack}\n`));
    return e.exitCode;
  }
}

async function dispatch(argv: string[], io: MainIo): Promise<number> {
  // First pass, lenient: only to find the command (the first positional argument).
  const first = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const cmdToken = first.tokens.find((t) => t.kind === "positional");
  if (cmdToken === undefined) return noCommand(first.values, io);
  const entry = COMMANDS.find((c) => c.name === cmdToken.value);
  if (entry === undefined) {
    throw usageError(`unknown command "${cmdToken.value}": the commands are ${COMMANDS.map((c) => c.name).join(", ")} (see tenexd --help)`);
  }
  // Only this command's code is loaded: the daemon (`start`) would keep all of them in memory.
  const cmd = await entry.load();
  const rest = argv.filter((_, i) => i !== cmdToken.index);
  const values = parseCommandArgs(cmd, rest);
  if (values.help === true) {
    io.stdout.write(commandHelp(cmd));
    return EXIT.OK;
  }
  return cmd.run(context(values, io));
}

async function noCommand(values: OptionValues, io: MainIo): Promise<number> {
  if (values.version === true) {
    io.stdout.write(`tenexd ${packageVersion()}\n`);
    return EXIT.OK;
  }
  if (values.help === true) {
    io.stdout.write(globalHelp(COMMANDS));
    return EXIT.OK;
  }
  io.stderr.write(globalHelp(COMMANDS));
  return EXIT.INVALID;
}

function parseCommandArgs(cmd: Command, args: string[]): OptionValues {
  try {
    return parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...cmd.options }, strict: true, allowPositionals: false }).values;
  } catch (err) {
    // node:util's messages name the offending option; add where to look.
    throw usageError(`${(err as Error).message.split("\n")[0]} (see tenexd ${cmd.name} --help)`);
  }
}

function context(values: OptionValues, io: MainIo): CommandContext {
  const logJson = values["log-json"] === true ? true : undefined;
  return {
    projectDir: resolve(io.cwd, typeof values.project === "string" ? values.project : "."),
    json: values.json === true,
    options: values,
    // Human output can carry what anyone wrote (titles, content): nothing in it may drive the
    // terminal. JSON is written exactly.
    stdout: values.json === true ? io.stdout : { write: (s: string) => io.stdout.write(terminalSafe(s)) },
    logger: (level?: LogLevel) => createLogger({ level, json: logJson, stream: io.stderr }),
  };
}
