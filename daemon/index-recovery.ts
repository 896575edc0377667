// The index is derived from the logs. At start it is checked against them and repaired where
// it lags (only the missing tail is applied); `tenexd reindex` rebuilds it whole.

import { replay } from "../src/conversation-reducer.js";
import type { ConversationIndex, ConversationLog } from "../src/ports.js";

export interface ReconcileReport {
  checked: number;
  /** Conversations whose missing tail was applied. */
  repaired: { id: string; from: number; to: number }[];
  /** Conversations re-indexed whole (index ahead of the log, which only a lost log tail explains). */
  reindexed: string[];
  /** Index entries with no log behind them, dropped. */
  dropped: string[];
  /** Conversations whose log could not be read (quarantined): reported by the log. */
  unreadable: { id: string; error: string }[];
}

export type Progress = (done: number, total: number) => void;

export async function reconcileIndex(log: ConversationLog, index: ConversationIndex, onProgress?: Progress): Promise<ReconcileReport> {
  const report: ReconcileReport = { checked: 0, repaired: [], reindexed: [], dropped: [], unreadable: [] };
  const positions = index.indexedPositions();
  const stored = await log.list();
  for (const { id } of stored) {
    report.checked++;
    onProgress?.(report.checked, stored.length);
    const indexed = positions.get(id) ?? 0;
    positions.delete(id);
    try {
      const last = await log.lastPosition(id);
      if (last === indexed) continue;
      const records = await log.read(id);
      const conv = replay(id, records);
      if (indexed > last) {
        index.drop(id);
        index.apply(conv, records);
        report.reindexed.push(id);
      } else {
        index.apply(conv, records.filter((r) => r.n > indexed));
        report.repaired.push({ id, from: indexed, to: last });
      }
    } catch (err) {
      report.unreadable.push({ id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  for (const id of positions.keys()) {
    index.drop(id);
    report.dropped.push(id);
  }
  return report;
}

export interface RebuildableIndex extends ConversationIndex {
  resetAll(): void;
  highWaterMarks(): Map<string, number>;
  setHighWater(relay: string, createdAt: number): boolean;
}

export interface RebuildReport {
  conversations: number;
  records: number;
  /** Newest created_at of any event received from a relay: a floor for catch-up when marks were lost. */
  newestRelayEvent: number | undefined;
  unreadable: { id: string; error: string }[];
}

/**
 * Drops everything and applies every log again. Relay high-water marks are not derived from the
 * logs, so they are kept across the reset: losing them would make the next catch-up look like a
 * first sync, which stores history quietly and would leave missed events unanswered.
 */
export async function rebuildIndex(log: ConversationLog, index: RebuildableIndex, onProgress?: Progress): Promise<RebuildReport> {
  const marks = index.highWaterMarks();
  index.resetAll();
  for (const [relay, at] of marks) index.setHighWater(relay, at);
  const stored = await log.list();
  let records = 0;
  let newestRelayEvent: number | undefined;
  const unreadable: { id: string; error: string }[] = [];
  for (const [i, { id }] of stored.entries()) {
    try {
      const recs = await log.read(id);
      index.apply(replay(id, recs), recs);
      records += recs.length;
      for (const r of recs) {
        if (r.t === "event" && r.origin === "relay") newestRelayEvent = Math.max(newestRelayEvent ?? 0, r.ev.created_at);
      }
    } catch (err) {
      unreadable.push({ id, error: err instanceof Error ? err.message : String(err) });
    }
    onProgress?.(i + 1, stored.length);
  }
  return { conversations: stored.length - unreadable.length, records, newestRelayEvent, unreadable };
}
