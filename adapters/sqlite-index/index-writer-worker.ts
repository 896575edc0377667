// Entry point of the index's writer thread (worker-index-writer.ts): its own connection to the
// index file, applying each batch it is sent in one transaction and answering with the batch's
// number, or the error that rolled it back. Loaded from its compiled form
// (adapters/worker-thread/worker-file.ts).

import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "./open-database.js";
import { RelayMarks } from "./relay-marks.js";
import { unpackBatch } from "./index-wire.js";
import { IndexWriter } from "./writer.js";
import type { WriterRequest, WriterResponse } from "./writer-protocol.js";

if (!parentPort) throw new Error("index-writer-worker.js runs only as a worker thread of WorkerIndexWriter");
const port = parentPort;
const db = openDatabase((workerData as { path: string }).path);
const writer = new IndexWriter(db);
const marks = new RelayMarks(db);

port.on("message", (req: WriterRequest) => {
  if (req.close) {
    db.close();
    port.close();
    return;
  }
  let res: WriterResponse;
  try {
    if ("marks" in req) for (const [relay, at] of req.marks) marks.setHighWater(relay, at);
    else writer.applyBatch(unpackBatch(req));
    res = { seq: req.seq };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    res = { seq: req.seq, error: { name: e.name, message: e.message, ...(typeof code === "string" ? { code } : {}) } };
  }
  port.postMessage(res);
});
