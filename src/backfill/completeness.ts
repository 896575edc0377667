// When a relay counts as synced, and where its next back-fill starts. A relay's high-water mark
// moves only after a back-fill from it completed: everything it held from the start of that
// back-fill was fetched and stored. Anything less (a second that could not be split, a query
// that ended early, events the log refused, live events refused meanwhile) is incomplete: the
// mark stays, the back-fill is tried again, and a relay that had live events refused starts its
// next back-fill at or before the oldest of them.

export interface Paged {
  complete: boolean;
  reason?: string;
}

export type Settled = { complete: true } | { complete: false; reason: string };

/**
 * A back-fill's outcome: the pager's, unless some of its events could not be stored
 * (`notStored`) or live events from that relay were refused while it ran (`refusedMeanwhile`:
 * the back-fill may have met them before they were refused, so they are not known to be in).
 */
export function settleBackfill(paged: Paged, notStored: number, refusedMeanwhile: number): Settled {
  if (!paged.complete) return { complete: false, reason: paged.reason ?? "incomplete" };
  if (notStored > 0) return { complete: false, reason: `${notStored} events could not be stored` };
  if (refusedMeanwhile > 0) return { complete: false, reason: `${refusedMeanwhile} live events could not be stored meanwhile` };
  return { complete: true };
}

/**
 * created_at a relay's back-fill starts from: its mark, or the oldest live event it delivered
 * that could not be stored if that is older, minus the overlap. Undefined (everything) for a
 * relay never synced.
 */
export function backfillSince(mark: number | undefined, oldestRefused: number | undefined, overlapSeconds: number): number | undefined {
  if (mark === undefined) return undefined;
  const from = oldestRefused === undefined ? mark : Math.min(mark, oldestRefused);
  return Math.max(0, from - overlapSeconds);
}
