// One timed phase of a live ingest run, the same for tenexd and for its floor: from the first
// event of the phase sent until the host's index holds `target` messages, with the host's CPU
// (all threads, and its main thread alone) over that span.

import { evps } from "./bench-context.js";
import { cpuSecondsOf, pollFor } from "./child-daemon.js";

const INGEST_TIMEOUT_MS = 600_000;

export interface PhaseRun {
  rate: number;
  ms: number;
  cores: number;
  /** The host's main thread's own CPU over the run, per event (µs). */
  mainUs: number;
}

/**
 * `started`: performance.now() when the phase's first event went out; `count`: the messages the
 * host's index holds (undefined while it cannot be read); `events`: the phase's own.
 */
export async function timedPhase(pid: number, started: number, count: () => number | undefined, target: number, events: number): Promise<PhaseRun> {
  const cpu0 = cpuSecondsOf(pid);
  const main0 = cpuSecondsOf(pid, pid);
  await pollFor(() => {
    const n = count();
    return n !== undefined && n >= target ? n : undefined;
  }, INGEST_TIMEOUT_MS, `the index did not hold ${target} messages`);
  const ms = performance.now() - started;
  const mainUs = ((cpuSecondsOf(pid, pid) - main0) * 1e6) / events;
  return { rate: evps(events, ms), ms, cores: (cpuSecondsOf(pid) - cpu0) / (ms / 1000), mainUs };
}
