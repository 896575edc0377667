// Entry point of one VerifierPool worker thread: verifies each batch it is sent and answers
// with one verdict code per event. Loaded from its compiled form (see worker-file.ts).

import { parentPort } from "node:worker_threads";
import { verdictCode, type VerifyRequest, type VerifyResponse } from "./verify-protocol.js";
import { wasmCheck } from "./wasm-verify.js";

if (!parentPort) throw new Error("verify-worker.js runs only as a worker thread of VerifierPool");
const port = parentPort;

port.on("message", (req: VerifyRequest) => {
  const codes = new Uint8Array(req.events.length);
  for (let i = 0; i < req.events.length; i++) codes[i] = verdictCode(wasmCheck(req.events[i]!));
  const res: VerifyResponse = { batch: req.batch, codes };
  port.postMessage(res, [codes.buffer]);
});
