// What the index needs of a conversation to apply some of its records, taken from the
// aggregate as of those records: who each message is for, the numbers of the turns they open,
// the sessions of the cursors they move, and the conversation's row. Plain data: it crosses to
// the index's worker thread, which never sees the aggregate.

import { conversationRow, type Conversation } from "../../src/conversation-state.js";
import type { IndexItem } from "../../src/ports.js";
import type { LogRecord } from "../../src/records.js";
import { recipientsFor, type RecipientsOf } from "./message-row.js";

export function indexItem(conv: Conversation, records: readonly LogRecord[], recipientsOf: RecipientsOf, logBytes?: number): IndexItem {
  const recipients: string[][] = [];
  const turnNumbers: Record<string, number> = {};
  const sessions: Record<string, string> = {};
  for (const rec of records) {
    if (rec.t === "event") {
      recipients.push(recipientsFor(rec.ev, conv, recipientsOf));
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
