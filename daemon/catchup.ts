// Back-fill after start and after every reconnect: the live subscription is already open, so
// anything newer than the back-fill window arrives live; the back-fill pages backwards from
// now to (high-water mark − overlap). Duplicates (overlap, several relays, live and back-fill
// racing) are harmless: the pipeline deduplicates by event id.

import type { RelayFilter, RelayGateway } from "../src/ports.js";
import type { NostrEvent } from "../src/types.js";

export interface CatchupOptions {
  gateway: RelayGateway;
  /** The project's filters without since/until/limit. */
  filters: RelayFilter[];
  /** created_at (secs) to start from; undefined = everything the relays hold. */
  since: number | undefined;
  pageSize: number;
  fetchTimeoutMs: number;
  ingest: (ev: NostrEvent) => Promise<unknown>;
}

export interface CatchupResult {
  fetched: number;
  pages: number;
  /** Newest created_at seen, to move the high-water marks. */
  newest: number | undefined;
  /** True when a second held more events than a page, so some may be missing. */
  truncated: boolean;
}

export async function catchUp(o: CatchupOptions): Promise<CatchupResult> {
  const result: CatchupResult = { fetched: 0, pages: 0, newest: undefined, truncated: false };
  let until: number | undefined;
  for (;;) {
    const filters = o.filters.map((f) => ({
      ...f, limit: o.pageSize,
      ...(o.since !== undefined ? { since: o.since } : {}),
      ...(until !== undefined ? { until } : {}),
    }));
    const page = await o.gateway.fetch(filters, o.fetchTimeoutMs);
    result.pages++;
    result.fetched += page.length;
    // Ingest a page concurrently: per-conversation order is kept by the pipeline's queues.
    await Promise.all(page.map((ev) => o.ingest(ev)));
    if (page.length === 0) break;
    let oldest = Infinity;
    for (const ev of page) {
      oldest = Math.min(oldest, ev.created_at);
      result.newest = Math.max(result.newest ?? 0, ev.created_at);
    }
    if (page.length < o.pageSize) break;
    // `until` is inclusive, so the oldest second is asked again (its duplicates are skipped);
    // if one second alone fills a page we cannot page past it with timestamps.
    if (oldest === until) {
      result.truncated = true;
      break;
    }
    until = oldest;
  }
  return result;
}
