// What the index is handed of one conversation: records the log has made durable and, read from
// the conversation as of the last of them, what the records alone do not say: who each message
// is for, the number of each turn opened, the session of each cursor moved, and the
// conversation's row. Taken when the records are committed: by the time they are durable the
// live aggregate may already hold records that are not, and the index must hold none of those.

import { conversationRow, type Conversation } from "./conversation-state.js";
import { indexedRecipients, type RecipientsOf } from "./messaging/recipients.js";
import type { IndexItem } from "./ports.js";
import type { LogRecord } from "./records.js";

/** `conv` must be the conversation as of the last of `records` (it holds them, and nothing after). */
export function indexItem(conv: Conversation, records: readonly LogRecord[], recipientsOf: RecipientsOf, logBytes?: number): IndexItem {
  const recipients: string[][] = [];
  // Built for every commit: the two maps only when a record needs them.
  let turnNumbers: Record<string, number> = NONE;
  let sessions: Record<string, string> = NONE;
  for (const rec of records) {
    if (rec.t === "event") {
      recipients.push(indexedRecipients(rec.ev, conv, recipientsOf));
    } else if (rec.t === "turn_start") {
      const number = conv.turns.byId.get(rec.turnId)?.number;
      if (number !== undefined) (turnNumbers = turnNumbers === NONE ? {} : turnNumbers)[rec.turnId] = number;
    } else if (rec.t === "cursor") {
      const session = conv.views.get(rec.agent)?.session;
      if (session !== undefined) (sessions = sessions === NONE ? {} : sessions)[rec.agent] = session;
    }
  }
  const item: IndexItem = { conversationId: conv.id, records, recipients, turnNumbers, sessions, row: conversationRow(conv) };
  if (logBytes !== undefined) item.logBytes = logBytes;
  return item;
}

const NONE: Record<string, never> = Object.freeze({});

/** How many records the items carry. */
export function recordCount(items: readonly IndexItem[]): number {
  let records = 0;
  for (const item of items) records += item.records.length;
  return records;
}
