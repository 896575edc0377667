// CLI errors and how each is reported: a clear message, a stable code for --json, an exit code.
// Exit codes: 0 ok, 1 failure, 2 invalid usage or configuration, 3 the project is locked by
// another running tenexd, 4 .tenex is not writable, 5 no space left for .tenex.

// The errors alone (no verifier or spawner is loaded with them): every command loads this file.
import { VerifierChoiceError } from "../../adapters/verify/errors.js";
import { SpawnerChoiceError } from "../../adapters/spawn/errors.js";
// Its own file, not config/index.js: every command loads this one, and the schemas (zod) only some need.
import { ConfigError } from "../config/errors.js";
import { OPERATOR_EXIT, operatorFaultOf } from "../operator-faults.js";

export const EXIT = { OK: 0, FAILURE: 1, INVALID: 2, ...OPERATOR_EXIT } as const;

export class CliError extends Error {
  override name = "CliError";
  constructor(message: string, readonly code: string, readonly exitCode: number = EXIT.FAILURE) {
    super(message);
  }
}

export const usageError = (message: string): CliError => new CliError(message, "usage", EXIT.INVALID);

export interface ReportedError {
  code: string;
  message: string;
  exitCode: number;
  /** Only for bugs: expected errors never show a stack trace. */
  stack?: string;
}

export function classify(err: unknown): ReportedError {
  if (err instanceof ConfigError) return { code: err.code, message: err.message, exitCode: EXIT.INVALID };
  if (err instanceof VerifierChoiceError || err instanceof SpawnerChoiceError) return { code: "config_invalid", message: err.message, exitCode: EXIT.INVALID };
  if (err instanceof CliError) return { code: err.code, message: err.message, exitCode: err.exitCode };
  const operator = operatorFaultOf(err);
  if (operator) return { code: operator.code, message: operator.message, exitCode: operator.exitCode };
  const e = err instanceof Error ? err : new Error(String(err));
  return { code: "internal", message: `internal error: ${e.message}`, exitCode: EXIT.FAILURE, stack: e.stack };
}
