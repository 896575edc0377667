// One-shot query over several relays: resolves when every relay asked has answered (EOSE, or
// ended the query: CLOSED, a dropped connection, the timeout), with the events deduplicated by id.

import type { QueryEnd, RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

export type QueryFn = (relay: string, filters: RelayFilter[], onEvent: (ev: unknown) => void, timeoutMs: number) => Promise<QueryEnd>;

export async function fetchFromRelays(relays: readonly string[], filters: RelayFilter[], timeoutMs: number, query: QueryFn): Promise<NostrEvent[]> {
  const events = new Map<string, NostrEvent>();
  const collect = (ev: unknown) => {
    // Unchecked: the caller validates and verifies; only an id is needed to deduplicate here.
    const id = (ev as { id?: unknown } | null)?.id;
    if (typeof id === "string" && !events.has(id)) events.set(id, ev as NostrEvent);
  };
  await Promise.all(relays.map((url) => query(url, filters, collect, timeoutMs)));
  return [...events.values()];
}
