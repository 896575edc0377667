// What the main thread and the urgent lane's thread say to each other (thread-file-ops.ts,
// file-ops-worker.ts): one message per file call, one answer per message, matched by `seq`.

export type FileCall = { seq: number } & (
  | { op: "open"; path: string; create: boolean }
  | { op: "openFirst"; paths: string[]; create: boolean }
  | { op: "fstat"; fd: number }
  | { op: "read"; fd: number; length: number; position: number }
  | { op: "write"; fd: number; bytes: Uint8Array; position: number }
  | { op: "fdatasync"; fd: number }
  | { op: "writeAndSync"; fd: number; bytes: Uint8Array; position: number }
  | { op: "ftruncate"; fd: number; length: number }
  | { op: "close"; fd: number }
  | { op: "syncDir"; path: string }
);

/** An error as the thread saw it: Node's errno fields survive the trip (a clone of an Error drops them). */
export interface CallError {
  message: string;
  code?: string | undefined;
  errno?: number | undefined;
  syscall?: string | undefined;
  path?: string | undefined;
}

export interface FileAnswer {
  seq: number;
  value?: number | Uint8Array | { size: number; ino: number } | { fd: number; index: number; created: boolean } | undefined;
  error?: CallError;
}
