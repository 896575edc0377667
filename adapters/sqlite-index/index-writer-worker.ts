// Entry point of the index's writer thread (worker-index-writer.ts): its own connection to the
// index file, applying each batch it is sent in one transaction (or holding it open until told to
// commit or roll it back: held-batch.ts) and answering with the message's number, or the error
// that rolled it back. Loaded from its compiled form (adapters/worker-thread/worker-file.ts).

import { parentPort, workerData } from "node:worker_threads";
import { recordCount } from "../../src/index-item.js";
import { DeferredCheckpoint } from "./deferred-checkpoint.js";
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
const checkpoint = new DeferredCheckpoint(db, () => writer.held.holding);

port.on("message", (req: WriterRequest) => {
  if (req.close) {
    // A batch still held was never made durable: it goes with the connection.
    writer.held.rollback();
    checkpoint.beforeClose();
    db.close();
    port.close();
    return;
  }
  let res: WriterResponse;
  try {
    if ("marks" in req) for (const [relay, at] of req.marks) marks.setHighWater(relay, at);
    else if ("end" in req && req.end === "commit") writer.held.commit();
    else if ("end" in req) writer.held.rollback();
    else {
      const items = unpackBatch(req);
      if (req.hold) writer.held.hold(items);
      else writer.applyBatch(items);
      checkpoint.wrote(recordCount(items));
    }
    res = { seq: req.seq };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    res = { seq: req.seq, error: { name: e.name, message: e.message, ...(typeof code === "string" ? { code } : {}) } };
  }
  port.postMessage(res);
  checkpoint.afterAnswer();
});
