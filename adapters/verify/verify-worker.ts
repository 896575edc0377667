// Entry point of one VerifierPool worker thread: verifies each batch it is sent and answers
// with one verdict code per event, with the verifier the process chose at start (its backend
// comes in workerData; verifier-choice.ts). Loaded from its compiled form (see worker-file.ts).

import { parentPort, workerData } from "node:worker_threads";
import { loadCheck, type VerifierBackend } from "./verifier-choice.js";
import { verdictCode, type VerifyRequest, type VerifyResponse } from "./verify-protocol.js";

if (!parentPort) throw new Error("verify-worker.js runs only as a worker thread of VerifierPool");
const port = parentPort;
const check = await loadCheck((workerData as { backend?: VerifierBackend } | undefined)?.backend ?? "nostr-wasm");

port.on("message", (req: VerifyRequest) => {
  const codes = new Uint8Array(req.events.length);
  for (let i = 0; i < req.events.length; i++) codes[i] = verdictCode(check(req.events[i]!));
  const res: VerifyResponse = { batch: req.batch, codes };
  port.postMessage(res, [codes.buffer]);
});
