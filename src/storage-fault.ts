// Which failures of the storage are the operator's to fix rather than tenexd's bugs: the file
// system holding .tenex is read-only or not writable by this user, or it is full. Said by the
// error codes the OS and SQLite give, anywhere in an error's chain of causes (the log wraps the
// fs error it met; SQLite's come as SQLITE_* codes).

export type StorageFault = "read_only" | "full";

const READ_ONLY = new Set(["EROFS", "EACCES", "EPERM"]);
const FULL = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);

export interface StorageFaultCause {
  fault: StorageFault;
  /** The error that said so, as the OS or SQLite worded it (it names the file when it can). */
  why: string;
}

/** The storage fault behind `err`, if it is one. */
export function storageFaultOf(err: unknown): StorageFaultCause | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e instanceof Error; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (READ_ONLY.has(code) || code.startsWith("SQLITE_READONLY")) return { fault: "read_only", why: e.message };
    if (FULL.has(code)) return { fault: "full", why: e.message };
  }
  return undefined;
}
