// Entry point of one VerifierPool worker thread: verifies each batch it is sent and answers
// with one verdict code per event, with the verifier the process chose at start (its backend
// comes in workerData; verifier-choice.ts). Loaded from its compiled form (see worker-file.ts).
// It ends itself when the pool asks (closing its port ends the thread between two batches);
// worker-slot.ts says why it is not terminated from outside.

import { parentPort, workerData } from "node:worker_threads";
import { detachEarly } from "../worker-thread/detach-early.js";
import { packJson } from "./event-json.js";
import { loadCheck, loadJsonCheck } from "./verifier-choice.js";
import {
  SHARED_CHECKING,
  SHARED_STOP,
  verdictCode,
  type PoolMessage,
  type VerifyResponse,
  type VerifyWorkerData,
  type WorkerReady,
} from "./verify-protocol.js";

if (!parentPort) throw new Error("verify-worker.js runs only as a worker thread of VerifierPool");
const port = parentPort;
detachEarly();
const { backend, shared, json } = workerData as VerifyWorkerData;
// With `json`, each passing event's JSON comes from the check, which has serialized its tags and
// content for the id's hash already (native-verify.ts).
const check = json ? undefined : await loadCheck(backend);
const jsonCheck = json ? await loadJsonCheck(backend) : undefined;

port.on("message", (req: PoolMessage) => {
  if ("stop" in req || Atomics.load(shared, SHARED_STOP) === 1) return port.close();
  Atomics.store(shared, SHARED_CHECKING, req.batch + 1);
  const codes = new Uint8Array(req.events.length);
  if (check) {
    for (let i = 0; i < req.events.length; i++) codes[i] = verdictCode(check(req.events[i]!));
    return answer({ batch: req.batch, codes }, [codes.buffer]);
  }
  const texts: string[] = [];
  for (let i = 0; i < req.events.length; i++) {
    const { verdict, json: text } = jsonCheck!(req.events[i]!);
    codes[i] = verdictCode(verdict);
    texts.push(text ?? "");
  }
  const packed = packJson(texts);
  answer({ batch: req.batch, codes, ...packed }, [codes.buffer, packed.json.buffer as ArrayBuffer, packed.ends.buffer as ArrayBuffer]);
});

function answer(res: VerifyResponse, transfer: ArrayBuffer[]): void {
  port.postMessage(res, transfer);
  Atomics.store(shared, SHARED_CHECKING, 0);
}

port.postMessage({ ready: true } satisfies WorkerReady);
