// Runs the daemon until the stop signal: the engine starts (recover, reconcile, connect, catch
// up), then the API listens beside it on the engine's ports (src/ports.ts); readiness is
// reported once both are up; at the signal the API stops first, then the engine, cleanly.

import { ApiServer } from "./front-desk/api/server.js";
import type { LoadedProject } from "./config/index.js";
import { Engine } from "./engine/engine.js";
import type { Logger } from "./logger.js";

export interface Readiness {
  /** The relays it reads (the embedded relay's url when it runs one). */
  relays: string[];
  /** From start to ready (log, index and relays in step). */
  ms: number;
  /** Stored conversations. */
  conversations: number;
}

export interface RunOptions {
  /** Aborted on SIGINT/SIGTERM: stop, flush, close, then resolve. */
  signal: AbortSignal;
  logger: Logger;
  /** Called once the daemon is ready and its API listens. */
  onReady?: (ready: Readiness) => void;
  /** What `POST /api/v1/stop` (tenexd stop) calls: it should abort `signal`. Without it, no such endpoint. */
  requestStop?: () => void;
}

export async function runDaemon(project: LoadedProject, opts: RunOptions): Promise<void> {
  if (opts.signal.aborted) return;
  const engine = await Engine.start(project, { logger: opts.logger });
  let api: ApiServer | undefined;
  try {
    api = await ApiServer.start(engine.ports(), project, opts.logger.child({ component: "api" }), opts.requestStop ? { requestStop: opts.requestStop } : {});
    opts.onReady?.(engine.readiness());
    if (!opts.signal.aborted) {
      await new Promise<void>((done) => opts.signal.addEventListener("abort", () => done(), { once: true }));
    }
  } finally {
    await api?.stop();
    await engine.stop();
  }
}
