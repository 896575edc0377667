// The damage records (adapters/fs-log/damage-records.ts) as a table: `tenexd status` and
// `tenexd damage` print the same one.

import { formatTable } from "../table.js";
import { clip, iso } from "./format.js";
import type { DamageRecord } from "../../../src/daemon-status.js";

export const CLEAR_HINT = "clear a record once handled: tenexd damage --clear ID (the saved bytes stay)";

export function damageTable(records: readonly DamageRecord[], indent = ""): string {
  return formatTable(["ID", "FOUND", "CONVERSATION", "WHAT", "SAVED TO", ...(records.some((r) => r.clearedAt) ? ["CLEARED"] : [])],
    records.map((r) => [
      r.id, iso(r.at), r.conversationId.slice(0, 12), clip(r.detail, 70), r.savedTo, ...(r.clearedAt ? [iso(r.clearedAt)] : []),
    ]), indent);
}
