// Execution time per conversation (docs/contract.md), kept across restarts as start / beat / stop
// records. A session left open by a crash is closed at its last heartbeat: the time up to the
// last proof of life counts, the dead time after it does not.

import type { ExecState } from "./conversation-state.js";
import type { ExecRecord } from "./records.js";

export type ExecDecision = Omit<ExecRecord, "n">;

export const initialExecState = (): ExecState => ({ totalMs: 0 });

const isOpen = (s: ExecState): s is ExecState & { openSince: number } => s.openSince !== undefined;

const record = (op: ExecRecord["op"], at: number): ExecDecision[] => [{ t: "exec", op, at }];

function close(state: ExecState, at: number): void {
  if (state.openSince === undefined) return;
  state.totalMs += Math.max(0, at - state.openSince);
  delete state.openSince;
  delete state.lastBeat;
}

/** Folds an exec record into the state, in place. */
export function applyExecRecord(state: ExecState, rec: ExecRecord): void {
  switch (rec.op) {
    case "start":
      // A start over an open session means its stop was never written: close it where it
      // was last known alive, as recovery would have.
      if (isOpen(state)) close(state, state.lastBeat ?? state.openSince);
      state.openSince = rec.at;
      state.lastBeat = rec.at;
      return;
    case "beat":
      if (isOpen(state)) state.lastBeat = Math.max(state.lastBeat ?? state.openSince, rec.at);
      return;
    case "stop":
      close(state, rec.at);
      return;
  }
}

export const decideExecStart = (state: ExecState, now: number): ExecDecision[] => (isOpen(state) ? [] : record("start", now));
export const decideExecBeat = (state: ExecState, now: number): ExecDecision[] => (isOpen(state) ? record("beat", now) : []);
export const decideExecStop = (state: ExecState, now: number): ExecDecision[] => (isOpen(state) ? record("stop", now) : []);

/** After a crash: the stop of a session still open, dated at its last recorded proof of life. */
export const recoverOpenSession = (state: ExecState): ExecDecision[] =>
  isOpen(state) ? record("stop", state.lastBeat ?? state.openSince) : [];

export function totalExecutionMs(state: ExecState, now: number): number {
  return state.totalMs + (isOpen(state) ? Math.max(0, now - state.openSince) : 0);
}

/** Whole seconds, as TENEX stores them. */
export const totalExecutionSeconds = (state: ExecState, now: number): number =>
  Math.round(totalExecutionMs(state, now) / 1000);
