// The operator's faults, named once for the API and the CLI: a project locked by another running
// tenexd, storage that is read-only, storage that is full. Each has its own code, HTTP status
// (for the requests that can meet it), exit status, and a message that says what to do. None is
// an "internal error": tenexd is not at fault, and a stack trace would not help.

import { storageFaultOf, type StorageFault } from "../src/storage-fault.js";
import { ProjectLockedError } from "./pid-lock.js";

export interface OperatorFault {
  code: string;
  message: string;
  /** The API's answer to a request that met it. */
  status: number;
  /** The CLI's exit status (README, "Exit status"). */
  exitCode: number;
}

export const OPERATOR_EXIT = { LOCKED: 3, READ_ONLY: 4, FULL: 5 } as const;

const READS = "the read commands (status, conversations, show, context, routing, inbox, stats) still answer from the index";

const STORAGE: Record<StorageFault, { code: string; status: number; exitCode: number; say(why: string): string }> = {
  read_only: {
    code: "storage_read_only", status: 503, exitCode: OPERATOR_EXIT.READ_ONLY,
    say: (why) => `the project's .tenex is not writable (${why}): remount it read-write, or give this user write access to it, then try again; ${READS}`,
  },
  full: {
    code: "storage_full", status: 507, exitCode: OPERATOR_EXIT.FULL,
    say: (why) => `no space left for the project's .tenex (${why}): free space on the file system that holds it, then try again; nothing that was not recorded was acknowledged, and ${READS}`,
  },
};

/** The operator's fault behind `err`, or undefined when it is something else. */
export function operatorFaultOf(err: unknown): OperatorFault | undefined {
  if (err instanceof ProjectLockedError) {
    return {
      code: "project_locked", status: 409, exitCode: OPERATOR_EXIT.LOCKED,
      message: `another tenexd (pid ${err.pid}) is running on this project (it holds ${err.path}): stop it first (\`tenexd stop\`, \`kill ${err.pid}\`, or Ctrl-C where it runs); the read commands ask it`,
    };
  }
  const storage = storageFaultOf(err);
  if (!storage) return undefined;
  const s = STORAGE[storage.fault];
  return { code: s.code, status: s.status, exitCode: s.exitCode, message: s.say(storage.why) };
}

/** The exit status for an operator's fault the API answered with (by its code). */
export function exitCodeOfApiCode(code: string): number | undefined {
  if (code === "project_locked") return OPERATOR_EXIT.LOCKED;
  return Object.values(STORAGE).find((s) => s.code === code)?.exitCode;
}
