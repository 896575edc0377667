// Response times of one conversation recomputed from its messages: what apply added to the
// response histogram, so drop can take it out again. Same rule as apply (message-writer.ts):
// a message to an agent is answered by that agent's next message in the conversation.

/** One message and one of its recipients (null: a message to no one), in log order. */
export interface ReplayRow {
  n: number;
  author: string;
  created_at: number;
  recipient: string | null;
}

/** Seconds from a message to its answer; clock skew between authors never makes it negative. */
export const responseSeconds = (sentAt: number, answeredAt: number): number => Math.max(0, answeredAt - sentAt);

/** [agent, seconds] of every answered message, from rows sorted by n. */
export function replayResponseTimes(rows: Iterable<ReplayRow>): [string, number][] {
  const waiting = new Map<string, number[]>();
  const out: [string, number][] = [];
  let lastN = -1;
  for (const row of rows) {
    if (row.n !== lastN) {
      lastN = row.n;
      for (const sentAt of waiting.get(row.author) ?? []) out.push([row.author, responseSeconds(sentAt, row.created_at)]);
      waiting.delete(row.author);
    }
    if (row.recipient === null) continue;
    let list = waiting.get(row.recipient);
    if (!list) waiting.set(row.recipient, (list = []));
    list.push(row.created_at);
  }
  return out;
}
