// One step of a back-fill's paging (daemon/catchup.ts asks, this decides). NIP-01 pages by
// created_at alone, newest first: a filter asked with `until` and `limit` gets its `limit`
// newest matches at or before `until`. One REQ carries every filter with one shared `until`
// (the relay answers the union once: the project's filters overlap heavily), and the next page
// starts at the newest second down to which every filter still paging was answered.
//
// A second holding a whole page for one filter cannot be paged past that way: asking it again
// gives the same page. Such a second is handed out (`full`) to be split (second-walk.ts), and
// that filter goes on below it with an `until` of its own (its ceiling), so the shared `until`
// never sends it back into that second.

import { matchFilter, type Filter } from "nostr-tools/filter";
import type { RelayFilter } from "../ports.js";

export interface Cursor {
  /** The filter without since, until or limit. */
  filter: RelayFilter;
  /** Its own `until`, below the page's: set once it has passed a full second. */
  ceiling?: number;
}

/** A second in which `filter` matches at least a page of events. */
export interface FullSecond {
  filter: RelayFilter;
  second: number;
}

export interface PageStep {
  cursors: Cursor[];
  until: number | undefined;
  full: FullSecond[];
}

export function windowed(f: RelayFilter, since: number | undefined, until: number | undefined, limit: number): RelayFilter {
  return { ...f, limit, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/** The filters of one page: each cursor's filter, down from the page's `until` or its own ceiling. */
export function pageRequest(cursors: readonly Cursor[], since: number | undefined, until: number | undefined, limit: number): RelayFilter[] {
  return cursors.map((c) => windowed(c.filter, since, lowest(until, c.ceiling), limit));
}

/**
 * What to ask next, from the answer to `paged` (pageRequest of `cursors`). The page's events
 * that match a filter hold its `limit` newest matches (plus older ones other filters brought).
 * A filter with fewer than `limit` matches is done. Every other one was answered down to its
 * limit-th newest second, its boundary, and the next page starts at the newest boundary, so no
 * filter skips anything (`until` is inclusive: that second is asked again, its copies skipped).
 * A filter whose `limit` newest matches all share one second has a full second: it is handed
 * out, and the filter goes on from the second below (or is done if that is before `since`).
 */
export function nextPage(
  cursors: readonly Cursor[], paged: readonly RelayFilter[], page: readonly unknown[], limit: number, since?: number,
): PageStep {
  const next: Cursor[] = [];
  const full: FullSecond[] = [];
  let until: number | undefined;
  cursors.forEach((c, i) => {
    const matched = page.filter((ev) => matches(paged[i]!, ev)).map(createdAt).sort((a, b) => b - a);
    if (matched.length < limit) return;
    const boundary = matched[limit - 1]!;
    let from = boundary;
    let ceiling = c.ceiling === undefined ? undefined : boundary;
    if (matched[0] === boundary) {
      full.push({ filter: c.filter, second: boundary });
      from = ceiling = boundary - 1;
      if (from < (since ?? 0)) return;
    }
    next.push(ceiling === undefined ? { filter: c.filter } : { filter: c.filter, ceiling });
    until = Math.max(until ?? 0, from);
  });
  return { cursors: next, until, full };
}

/** Whether a (not yet checked) event matches a filter; a malformed one matches nothing. */
export function matches(filter: RelayFilter, ev: unknown): boolean {
  const t = (ev as { created_at?: unknown } | null)?.created_at;
  if (typeof t !== "number" || !Number.isSafeInteger(t)) return false;
  try {
    return matchFilter(filter as Filter, ev as Parameters<typeof matchFilter>[1]);
  } catch {
    return false;
  }
}

const createdAt = (ev: unknown) => (ev as { created_at: number }).created_at;

function lowest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
