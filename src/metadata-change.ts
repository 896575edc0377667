// When a conversation's metadata (kind 513: its title and status) is announced: when records made
// durable give it its title (its root arrived) or change its status (closed, reopened). History
// is not announced again: records taken in with an event older than HISTORY_SECS (a back-fill,
// a thread fetch) change nothing the clients have not seen.

import type { LogRecord } from "./records.js";

export const HISTORY_SECS = 600;

export function metadataChanged(conversationId: string, records: readonly LogRecord[], nowSecs: number): boolean {
  let changed = false;
  for (const r of records) {
    if (r.t === "event") {
      if (r.ev.created_at < nowSecs - HISTORY_SECS) return false;
      if (r.ev.id === conversationId) changed = true;
    } else if (r.t === "status") {
      changed = true;
    }
  }
  return changed;
}
