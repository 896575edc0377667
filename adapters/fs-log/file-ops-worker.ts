// The urgent lane's thread (thread-file-ops.ts): runs each file call it is sent with Node's
// synchronous calls, one at a time, and answers with its result or its error. It loads nothing
// but node:fs, so it stays small. Loaded from its compiled form (worker-thread/worker-file.ts).

import * as fs from "node:fs";
import { parentPort } from "node:worker_threads";
import { detachEarly } from "../worker-thread/detach-early.js";
import type { FileCall, FileAnswer } from "./file-ops-protocol.js";

const { O_RDWR, O_CREAT, O_EXCL, O_RDONLY } = fs.constants;

function run(call: FileCall): { value: FileAnswer["value"]; transfer?: ArrayBuffer } {
  switch (call.op) {
    case "open":
      // 0600 whatever the umask, as nodeFileOps.
      return { value: fs.openSync(call.path, call.create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0o600) };
    case "openFirst":
      return { value: openFirst(call.paths, call.create) };
    case "fstat": {
      const st = fs.fstatSync(call.fd);
      return { value: { size: st.size, ino: st.ino } };
    }
    case "read": {
      const buf = new Uint8Array(call.length);
      const n = fs.readSync(call.fd, buf, 0, call.length, call.position);
      return { value: buf.subarray(0, n), transfer: buf.buffer };
    }
    case "write":
      return { value: fs.writeSync(call.fd, call.bytes, 0, call.bytes.length, call.position) };
    case "fdatasync":
      fs.fdatasyncSync(call.fd);
      return { value: undefined };
    case "writeAndSync":
      for (let off = 0; off < call.bytes.length; ) {
        const wrote = fs.writeSync(call.fd, call.bytes, off, call.bytes.length - off, call.position + off);
        if (wrote <= 0) throw new Error(`write returned ${wrote}`);
        off += wrote;
      }
      fs.fdatasyncSync(call.fd);
      return { value: undefined };
    case "ftruncate":
      fs.ftruncateSync(call.fd, call.length);
      return { value: undefined };
    case "close":
      fs.closeSync(call.fd);
      return { value: undefined };
    case "syncDir": {
      const fd = fs.openSync(call.path, O_RDONLY);
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return { value: undefined };
    }
  }
}

// As FileOps.openFirst says: the first that exists, else the first created, else undefined.
function openFirst(paths: readonly string[], create: boolean): { fd: number; index: number; created: boolean } | undefined {
  for (let index = 0; index < paths.length; index++) {
    try {
      return { fd: fs.openSync(paths[index]!, O_RDWR, 0o600), index, created: false };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  if (!create || paths.length === 0) return undefined;
  return { fd: fs.openSync(paths[0]!, O_RDWR | O_CREAT | O_EXCL, 0o600), index: 0, created: true };
}

const port = parentPort;
if (!port) throw new Error("file-ops-worker: not started as a worker thread");
detachEarly();
port.on("message", (call: FileCall) => {
  let answer: FileAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const done = run(call);
    answer = { seq: call.seq, value: done.value };
    if (done.transfer) transfer = [done.transfer];
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    answer = { seq: call.seq, error: { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, path: err.path } };
  }
  port.postMessage(answer, transfer);
});
