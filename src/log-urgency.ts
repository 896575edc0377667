// Which appends someone is waiting on (docs/performance.md, "from a message to its agent"):
// records that set an agent to work (its run starts once they are durable), an event the daemon
// publishes (it goes to the relays once it is durable), and the cursor a run starts with: its
// answer follows within the run's time, and may not pass the cursor's flush (a file is in one
// flush at a time); in a flush of every other conversation, under load, it held the answer
// back until that whole flush was done. The log flushes these at once, beside a flush already
// running for other conversations, rather than behind it.

import type { NewRecord } from "./records.js";

export function isUrgent(records: readonly NewRecord[]): boolean {
  return records.some((r) => r.t === "run_pending" || r.t === "cursor" || (r.t === "event" && r.origin === "local"));
}
