// TENEX phase transitions and execution time → phase and exec records.

import type { ExecRecord, PhaseRecord } from "../../src/records.js";
import type { PhasedTransition } from "./parse-conversation.js";
import type { TenexExecutionTime } from "./tenex-schema.js";
import { toMs } from "./time.js";

type Draft<R> = Omit<R, "n">;

/**
 * Every transition TENEX recorded, verbatim. They are not re-checked against tenexd's
 * transition table: they happened, and the log records what happened.
 */
export const phaseRecords = (transitions: readonly PhasedTransition[]): Draft<PhaseRecord>[] =>
  transitions.map((tr) => ({
    t: "phase", at: toMs(tr.timestamp), from: tr.from, to: tr.to, by: tr.agentPubkey,
    message: tr.message, reason: tr.reason ?? "",
  }));

/**
 * TENEX kept a running total, not sessions. The closed total becomes one start/stop pair of
 * that length, ending where TENEX last updated it (or where the open session began). A session
 * still open in TENEX is closed at `lastUpdated`, its last proof of life: the same rule
 * tenexd applies to a session a crash left open.
 */
export function execRecords(et: TenexExecutionTime | undefined): Draft<ExecRecord>[] {
  if (!et) return [];
  const out: Draft<ExecRecord>[] = [];
  const closedMs = Math.round(et.totalSeconds * 1000);
  const openSince = et.isActive && et.currentSessionStart !== undefined ? toMs(et.currentSessionStart) : undefined;
  const closedEnd = openSince ?? toMs(et.lastUpdated);
  if (closedMs > 0) {
    out.push({ t: "exec", op: "start", at: closedEnd - closedMs }, { t: "exec", op: "stop", at: closedEnd });
  }
  if (openSince !== undefined) {
    out.push({ t: "exec", op: "start", at: openSince }, { t: "exec", op: "stop", at: Math.max(openSince, toMs(et.lastUpdated)) });
  }
  return out;
}
