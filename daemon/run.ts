// Runs the daemon until the stop signal: start (recover, reconcile, connect, catch up), report
// readiness, wait, stop cleanly.

import type { LoadedProject } from "./config/index.js";
import { Daemon } from "./daemon.js";
import type { Logger } from "./log.js";

export interface RunOptions {
  /** Aborted on SIGINT/SIGTERM: stop, flush, close, then resolve. */
  signal: AbortSignal;
  log: Logger;
  /** Called once the daemon is ready (log, index and relays in step). */
  onReady?: (daemon: Daemon) => void;
}

export async function runDaemon(project: LoadedProject, opts: RunOptions): Promise<void> {
  if (opts.signal.aborted) return;
  const daemon = await Daemon.start(project, { log: opts.log });
  try {
    opts.onReady?.(daemon);
    if (!opts.signal.aborted) {
      await new Promise<void>((done) => opts.signal.addEventListener("abort", () => done(), { once: true }));
    }
  } finally {
    await daemon.stop();
  }
}
