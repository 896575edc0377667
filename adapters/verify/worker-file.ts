// Where the verifier pool finds its worker script (adapters/worker-thread/worker-file.ts: the
// compiled file, checked against its sources when running from them).

import { workerFile as compiledWorker } from "../worker-thread/worker-file.js";
import { WorkerFileError } from "./errors.js";

// The modules of this repository the worker loads (its imports, transitively).
const WORKER_SOURCES = [
  "adapters/verify/verifier-choice", "adapters/verify/native-verify", "adapters/verify/native-schnorr", "adapters/verify/self-test",
  "adapters/verify/wasm-verify", "adapters/verify/js-verify", "adapters/verify/event-form", "adapters/verify/verify-protocol", "adapters/verify/event-json", "src/types", "src/hex",
  "adapters/worker-thread/detach-early", "adapters/verify/errors",
];

export const workerFile = (): URL => compiledWorker("adapters/verify/verify-worker", WORKER_SOURCES, (d) => new WorkerFileError(d));
