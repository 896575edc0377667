// Back-fill after start and after every reconnect: the live subscription is already open, so
// anything newer than the back-fill window arrives live; the back-fill pages backwards from
// now to (high-water mark − overlap), one filter at a time. Duplicates (overlap, several
// relays, live and back-fill racing) are harmless: the pipeline deduplicates by event id.

import { matchFilter } from "nostr-tools/filter";
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
  /** Checked between pages: a stopping daemon ends its back-fill there. */
  stopped?: () => boolean;
}

export interface CatchupResult {
  fetched: number;
  pages: number;
  /** Newest created_at seen, to move the high-water marks. */
  newest: number | undefined;
  /** True when a second held more events than a page, so some may be missing. */
  truncated: boolean;
  /** False when it was stopped before reaching the window's start. */
  complete: boolean;
}

export async function catchUp(o: CatchupOptions): Promise<CatchupResult> {
  const result: CatchupResult = { fetched: 0, pages: 0, newest: undefined, truncated: false, complete: false };
  // Each filter is paged on its own: relays apply `limit` per filter, so the oldest event of a
  // page merged from several filters is not a cursor for all of them (one that filled its page
  // with newer events would skip everything between its oldest and that cursor).
  // An event an earlier filter matches was taken in by that filter's pass: it is not ingested
  // (verified, queued) a second time.
  for (const [i, filter] of o.filters.entries()) await pageBackwards(o, filter, o.filters.slice(0, i), result);
  result.complete = !o.stopped?.();
  return result;
}

async function pageBackwards(o: CatchupOptions, filter: RelayFilter, earlier: RelayFilter[], result: CatchupResult): Promise<void> {
  let until: number | undefined;
  for (;;) {
    if (o.stopped?.()) return;
    const paged = {
      ...filter, limit: o.pageSize,
      ...(o.since !== undefined ? { since: o.since } : {}),
      ...(until !== undefined ? { until } : {}),
    };
    const page = await o.gateway.fetch([paged], o.fetchTimeoutMs);
    result.pages++;
    result.fetched += page.length;
    // Ingest a page concurrently: per-conversation order is kept by the pipeline's queues.
    await Promise.all(page.filter((ev) => !coveredBy(earlier, ev)).map((ev) => o.ingest(ev)));
    if (page.length === 0) break;
    // Events are not checked yet: a created_at that is no timestamp moves no cursor.
    const times = page.map((ev) => ev.created_at).filter((t) => Number.isSafeInteger(t) && t >= 0).sort((a, b) => b - a);
    if (times.length > 0) result.newest = Math.max(result.newest ?? 0, times[0]!);
    if (page.length < o.pageSize) break;
    // The page merges every relay's answer, and each relay stops at `limit` on its own: one that
    // filled its page may not reach as far back as the page's oldest event. Every such relay
    // reached the page's pageSize-th newest second, so that is where the next page starts.
    // `until` is inclusive, so that second is asked again (its duplicates are skipped); if one
    // second alone fills a page we cannot page past it with timestamps.
    const next = times[Math.min(o.pageSize, times.length) - 1];
    if (next === undefined || next === until) {
      result.truncated = true;
      break;
    }
    until = next;
  }
}

/** Whether one of `filters` matches `ev` (not yet checked: a malformed event matches none). */
function coveredBy(filters: readonly RelayFilter[], ev: NostrEvent): boolean {
  try {
    return filters.some((f) => matchFilter(f as Parameters<typeof matchFilter>[0], ev));
  } catch {
    return false;
  }
}
