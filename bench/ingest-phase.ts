// A live ingest run timed the same way for tenexd and for its floor: each phase from its first
// event sent until the host's index holds `target` messages, with the host's CPU (all threads,
// and its main thread alone) over that span; a warm phase, when asked, right after the first.

import { evps } from "./bench-context.js";
import { cpuSecondsOf, pollFor } from "./child-daemon.js";
import type { ReplayRelay } from "./replay-relay.js";
import type { NostrEvent } from "../src/types.js";

const INGEST_TIMEOUT_MS = 600_000;

export interface PhaseRun {
  rate: number;
  ms: number;
  cores: number;
  /** The host's main thread's own CPU over the run, per event (µs). */
  mainUs: number;
}

export interface LiveRun extends PhaseRun {
  /** The same measures for a second set of events after the first (timedRun's `warm`). */
  warm?: PhaseRun;
}

/**
 * The host `pid`, fed `events` by `replay` (started when its first went out), timed until its
 * index holds them; with `warm`, those are pushed next down the same subscription and timed apart.
 */
export async function timedRun(
  pid: number, replay: ReplayRelay, started: number, count: () => number | undefined,
  events: readonly NostrEvent[], warm?: readonly NostrEvent[],
): Promise<LiveRun> {
  const run = await timedPhase(pid, started, count, events.length, events.length);
  if (!warm) return run;
  if (!replay.pushMore(warm)) throw new Error("the load generator has no live subscription to push the warm phase down");
  return { ...run, warm: await timedPhase(pid, replay.startedAt()!, count, events.length + warm.length, warm.length) };
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
