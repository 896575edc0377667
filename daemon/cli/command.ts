// The shape of a CLI command. Adding one = one file in commands/ plus a line in commands/index.ts.

import type { ParseArgsConfig } from "node:util";
import type { Logger, LogLevel } from "../logger.js";

export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;
export type OptionValues = Record<string, string | boolean | undefined>;

export interface Output {
  write(s: string): unknown;
}

export interface CommandContext {
  /** Absolute project directory (the one holding .tenex/). */
  projectDir: string;
  /** --json: print one JSON document on stdout instead of tables. */
  json: boolean;
  /** The command's own options, parsed. */
  options: OptionValues;
  stdout: Output;
  /** A logger writing to stderr, honouring --log-json. */
  logger(level?: LogLevel): Logger;
}

export interface Command {
  name: string;
  /** The body of `tenexd <name> --help`: usage line, description, the command's options. */
  usage: string;
  options: OptionSpecs;
  /** Resolves with the exit code. Errors thrown are reported by main (see errors.ts). */
  run(ctx: CommandContext): Promise<number>;
}
