import { describe, it, expect } from "vitest";
import {
  applyExecRecord, decideExecBeat, decideExecStart, decideExecStop, initialExecState, recoverOpenSession,
  totalExecutionMs, totalExecutionSeconds, type ExecDecision,
} from "../../src/execution-time.js";
import type { ExecState } from "../../src/conversation-state.js";
import type { ExecRecord } from "../../src/records.js";

let n = 0;
const apply = (state: ExecState, recs: ExecDecision[]) => {
  for (const r of recs) applyExecRecord(state, { ...r, n: ++n });
  return recs;
};

describe("execution time", () => {
  it("accumulates over several sessions, counting the open one up to now", () => {
    const s = initialExecState();
    apply(s, decideExecStart(s, 1_000));
    expect(decideExecStart(s, 1_500)).toEqual([]); // already open
    apply(s, decideExecBeat(s, 2_000));
    apply(s, decideExecStop(s, 4_000));
    expect(s.totalMs).toBe(3_000);
    expect(decideExecStop(s, 4_100)).toEqual([]);
    expect(decideExecBeat(s, 4_100)).toEqual([]);
    apply(s, decideExecStart(s, 10_000));
    apply(s, decideExecStop(s, 12_500));
    expect(totalExecutionMs(s, 99_999)).toBe(5_500);
    apply(s, decideExecStart(s, 20_000));
    expect(totalExecutionMs(s, 21_000)).toBe(6_500);
    expect(s.totalMs).toBe(5_500);
  });

  it("rounds to whole seconds as TENEX stores them", () => {
    const at = (ms: number) => {
      const s = initialExecState();
      apply(s, [{ t: "exec", op: "start", at: 0 }, { t: "exec", op: "stop", at: ms }]);
      return totalExecutionSeconds(s, ms);
    };
    expect(at(1499)).toBe(1);
    expect(at(1500)).toBe(2);
    expect(at(499)).toBe(0);
    expect(at(60_000)).toBe(60);
  });

  it("recovers a session left open by a crash at its last heartbeat, not at now, not dropped", () => {
    const log: ExecRecord[] = [];
    const live = initialExecState();
    const write = (recs: ExecDecision[]) => {
      for (const r of recs) { const rec = { ...r, n: log.length + 1 }; log.push(rec); applyExecRecord(live, rec); }
    };
    write(decideExecStart(live, 0));
    write(decideExecStop(live, 2_000));
    write(decideExecStart(live, 10_000));
    write(decideExecBeat(live, 15_000));
    write(decideExecBeat(live, 18_000));
    // Crash here. Hours later the daemon replays the log into a fresh state.
    const now = 3_600_000;
    const replayed = initialExecState();
    for (const r of log) applyExecRecord(replayed, r);
    const recovery = recoverOpenSession(replayed);
    expect(recovery).toEqual([{ t: "exec", op: "stop", at: 18_000 }]);
    apply(replayed, recovery);
    expect(replayed.openSince).toBeUndefined();
    expect(totalExecutionMs(replayed, now)).toBe(2_000 + 8_000);
    expect(recoverOpenSession(replayed)).toEqual([]);
  });

  it("closes a session that was never stopped at its last beat when a new one starts", () => {
    const s = initialExecState();
    apply(s, [
      { t: "exec", op: "start", at: 0 }, { t: "exec", op: "beat", at: 700 },
      { t: "exec", op: "start", at: 5_000 }, { t: "exec", op: "stop", at: 6_000 },
    ]);
    expect(s.totalMs).toBe(1_700);
  });
});
