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
  const turnNumbers: Record<string, number> = {};
  const sessions: Record<string, string> = {};
  for (const rec of records) {
    if (rec.t === "event") {
      recipients.push(indexedRecipients(rec.ev, conv, recipientsOf));
    } else if (rec.t === "turn_start") {
      const number = conv.turns.byId.get(rec.turnId)?.number;
      if (number !== undefined) turnNumbers[rec.turnId] = number;
    } else if (rec.t === "cursor") {
      const session = conv.views.get(rec.agent)?.session;
      if (session !== undefined) sessions[rec.agent] = session;
    }
  }
  return {
    conversationId: conv.id, records, recipients, turnNumbers, sessions, row: conversationRow(conv),
    ...(logBytes !== undefined ? { logBytes } : {}),
  };
}
