// The daemon's lifecycle. Placeholder until the real wiring lands: it only waits for the stop
// signal, so `tenexd start` already loads, reports and stops cleanly.

import type { LoadedProject } from "./config/index.js";
import type { Logger } from "./log.js";

export interface RunOptions {
  /** Aborted on SIGINT/SIGTERM: stop, flush, close, then resolve. */
  signal: AbortSignal;
  log: Logger;
}

export async function runDaemon(_project: LoadedProject, opts: RunOptions): Promise<void> {
  if (opts.signal.aborted) return;
  // A pending promise alone does not keep Node running: hold a timer until the stop signal.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  await new Promise<void>((done) => opts.signal.addEventListener("abort", () => done(), { once: true }));
  clearInterval(keepAlive);
}
