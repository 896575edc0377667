// The index is derived from the logs. At start after a crash it is checked against them and
// repaired where it lags (only the missing tail is applied); `tenexd reindex` rebuilds it whole.
//
// The check costs a stat per log, not a read: the index records, in the transaction that applied
// a log's records, the log's size after them (log_ends). A log still that size holds nothing the
// index lacks. Only logs of another size, and logs the index has no size for, are opened.

import { replay } from "../../../src/conversation-reducer.js";
import { indexItem } from "../../../src/index-item.js";
import { pTagRecipients, type RecipientsOf } from "../../../src/messaging/recipients.js";
import type { ConversationIndex, ConversationLog, LogEnd } from "../../../src/ports.js";
import type { ReconcileReport } from "../../../src/daemon-status.js";

export type Progress = (done: number, total: number) => void;

export interface RecoveryOptions {
  /** Who a message is for, as the index stores it (default: its `p` tags). */
  recipientsOf?: RecipientsOf;
  onProgress?: Progress;
}

export async function reconcileIndex(log: ConversationLog, index: ConversationIndex, opts: RecoveryOptions = {}): Promise<ReconcileReport> {
  const { recipientsOf = pTagRecipients, onProgress } = opts;
  const report: ReconcileReport = { checked: 0, opened: 0, repaired: [], reindexed: [], dropped: [], unreadable: [] };
  const indexed = index.indexedLogs();
  const stored = await log.sizes();
  // Ends found for logs the index already holds whole: recorded in one transaction at the end.
  const found = new Map<string, LogEnd>();
  for (const { id, bytes } of stored) {
    report.checked++;
    onProgress?.(report.checked, stored.length);
    const held = indexed.get(id);
    indexed.delete(id);
    const end = held?.end;
    if (end && end.n === held.n && end.bytes === bytes) continue;
    report.opened++;
    try {
      await reconcileOne(log, index, recipientsOf, report, found, id, held?.n ?? 0, end !== undefined && bytes < end.bytes);
    } catch (err) {
      report.unreadable.push({ id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  for (const id of indexed.keys()) {
    index.drop(id);
    report.dropped.push(id);
  }
  if (found.size > 0) index.setLogEnds(found);
  return report;
}

async function reconcileOne(
  log: ConversationLog, index: ConversationIndex, recipientsOf: RecipientsOf, report: ReconcileReport, found: Map<string, LogEnd>,
  id: string, indexed: number, shrunk: boolean,
): Promise<void> {
  // Opening the log repairs a torn tail first: `at` is where its intact records end.
  const at = await log.end(id);
  if (at.n === indexed && !shrunk) {
    // Nothing missing: the size differed by a torn tail only, or the index had no size for it.
    // (A log with no record and no index entry is left alone, as this check always has.)
    if (indexed > 0) found.set(id, at);
    return;
  }
  // Read whole: `end` is where the log ends after the read, which may have set damaged lines
  // aside (and rewritten the log shorter); nothing appends during start.
  const { records, end, setAside } = await log.readWhole(id);
  const last = end.n;
  const conv = replay(id, records);
  // Lines set aside: what the index holds of them must go, so it is rebuilt from what is left.
  if (shrunk || indexed > last || setAside > 0) {
    index.drop(id);
    index.applyBatch([indexItem(conv, records, recipientsOf, end.bytes)]);
    report.reindexed.push(id);
  } else {
    // The conversation is the fold of the whole log: what the missing tail's row is.
    index.applyBatch([indexItem(conv, records.filter((r) => r.n > indexed), recipientsOf, end.bytes)]);
    report.repaired.push({ id, from: indexed, to: last });
  }
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
export async function rebuildIndex(log: ConversationLog, index: RebuildableIndex, opts: RecoveryOptions = {}): Promise<RebuildReport> {
  const { recipientsOf = pTagRecipients, onProgress } = opts;
  const marks = index.highWaterMarks();
  index.resetAll();
  for (const [relay, at] of marks) index.setHighWater(relay, at);
  const stored = await log.list();
  let records = 0;
  let newestRelayEvent: number | undefined;
  const unreadable: { id: string; error: string }[] = [];
  for (const [i, { id }] of stored.entries()) {
    try {
      const { records: recs, end } = await log.readWhole(id);
      // With the log's size, so that the next check after a crash can skip an unchanged log.
      index.applyBatch([indexItem(replay(id, recs), recs, recipientsOf, end.bytes)]);
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
