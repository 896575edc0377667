// The order of a conversation's events: what every reader shows (agent context, `show`, the
// thread, the API). Nostr clients and agents publish many events within one second, relays
// deliver them in any order, and a back-fill brings replies before the roots they answer, so:
//
// 1. An event never comes before an event it answers (its root, its parent: references.ts).
// 2. Otherwise events go by `created_at`, and within one second by arrival (`n`, the log
//    position): the order they were received in, not the hash of their ids.
//
// Each event has a key, compared component by component (a key that is a prefix of another
// comes first): its own key is [created_at, n]; an event whose own key would put it at or
// before an event it answers is placed right after that event instead: key = [...the answered
// event's key, n]. When an answered event arrives late and sorts after events that answer it,
// those events (and whatever answers them in between) move right after it; this is the only
// case where events move, and it touches only the events between them.
//
// The order is a function of the records in log order: a replay of the log rebuilds exactly the
// live order. Keys use `n` only for comparing, never for counting, so positions may have gaps.
// An append is O(1); an event arriving out of order costs a binary search and an array shift.

import type { StoredEvent } from "./conversation-state.js";
import { referencesOf } from "./references.js";

type Key = readonly number[];

export interface EventOrder {
  /** Keys of the events placed after an event they answer; the others use their own key. */
  readonly placed: Map<StoredEvent, Key>;
  /** seen[i]: the largest log position among events[0..i]. A valid prefix, extended lazily. */
  readonly seen: number[];
  /** Ids referenced by events while not in the conversation, and the events waiting on them. */
  readonly waiting: Map<string, StoredEvent[]>;
  /** How many times events moved (rather than being inserted): a cache of positions is stale. */
  moves: number;
}

export const emptyOrder = (): EventOrder => ({ placed: new Map(), seen: [], waiting: new Map(), moves: 0 });

const ownKey = (e: StoredEvent): Key => [e.ev.created_at, e.n];

function compareKeys(a: Key, b: Key): number {
  const len = Math.min(a.length, b.length);
  for (let i = 0; i < len; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Negative when `a` comes before `b` in the conversation. */
export function compareStored(order: EventOrder, a: StoredEvent, b: StoredEvent): number {
  const ka = order.placed.get(a);
  const kb = order.placed.get(b);
  // The common case, two events at their own place, without allocating.
  if (!ka && !kb) return a.ev.created_at - b.ev.created_at || a.n - b.n;
  return compareKeys(ka ?? ownKey(a), kb ?? ownKey(b));
}

/** Index of `e` in `events`, or where it would go. */
export function positionOf(events: readonly StoredEvent[], order: EventOrder, e: StoredEvent): number {
  // The common case: the newest event, just appended.
  if (events[events.length - 1] === e) return events.length - 1;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareStored(order, events[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The largest log position among events[0..index]: everything seen by one who saw up to there. */
export function seenThrough(events: readonly StoredEvent[], order: EventOrder, index: number): number {
  const { seen } = order;
  while (seen.length <= index && seen.length < events.length) {
    seen.push(Math.max(seen.at(-1) ?? 0, events[seen.length]!.n));
  }
  return seen[Math.min(index, seen.length - 1)] ?? 0;
}

/**
 * The key `e` gets from the events it answers (`refs`) that are present (undefined: its own key).
 * Only an answered event at or after `e`'s own place matters; the usual reply comes after all it
 * answers, and is decided without building a key (this runs on every event taken in).
 */
function placedKey(byId: ReadonlyMap<string, StoredEvent>, order: EventOrder, e: StoredEvent, refs: readonly string[]): Key | undefined {
  let max: Key | undefined;
  for (const id of refs) {
    const ref = byId.get(id);
    if (!ref) continue;
    const placed = order.placed.get(ref);
    if (placed === undefined ? ownBefore(ref, e) : compareToOwn(placed, e) < 0) continue;
    const k = placed ?? ownKey(ref);
    if (max === undefined || compareKeys(k, max) > 0) max = k;
  }
  return max === undefined ? undefined : [...max, e.n];
}

/** Whether `a`'s own key comes before `b`'s. */
const ownBefore = (a: StoredEvent, b: StoredEvent): boolean =>
  a.ev.created_at < b.ev.created_at || (a.ev.created_at === b.ev.created_at && a.n < b.n);

/** compareKeys(k, ownKey(e)), without building the own key. */
function compareToOwn(k: Key, e: StoredEvent): number {
  if (k[0] !== e.ev.created_at) return k[0]! - e.ev.created_at;
  if (k[1] !== e.n) return k[1]! - e.n;
  return k.length - 2;
}

function waitForMissing(byId: ReadonlyMap<string, StoredEvent>, order: EventOrder, e: StoredEvent, refs: readonly string[]): void {
  for (const id of refs) {
    if (byId.has(id)) continue;
    const list = order.waiting.get(id);
    if (list) list.push(e);
    else order.waiting.set(id, [e]);
  }
}

/** Places a new event (not already held) in `events` and `byId`, moving what must follow it. */
export function insertOrdered(events: StoredEvent[], byId: Map<string, StoredEvent>, order: EventOrder, e: StoredEvent): void {
  const refs = referencesOf(e.ev).ancestors;
  const key = placedKey(byId, order, e, refs);
  if (key) order.placed.set(e, key);
  waitForMissing(byId, order, e, refs);
  byId.set(e.ev.id, e);
  const last = events[events.length - 1];
  let at = events.length;
  if (!last || compareStored(order, last, e) < 0) {
    events.push(e);
    // Kept up to date while it is complete, so live appends never rescan.
    if (order.seen.length === at) order.seen.push(Math.max(order.seen.at(-1) ?? 0, e.n));
  } else {
    at = positionOf(events, order, e);
    events.splice(at, 0, e);
    if (order.seen.length > at) order.seen.length = at;
  }
  settleAnswers(events, byId, order, e, at);
}

/**
 * `e` has just arrived at index `at`: events that answer it and sort before it move right after
 * it, together with the events between them that answer a moving one. Only events in
 * [first such event, at) can be affected: every moved event's new key extends `e`'s.
 */
function settleAnswers(events: StoredEvent[], byId: Map<string, StoredEvent>, order: EventOrder, e: StoredEvent, at: number): void {
  const answers = order.waiting.get(e.ev.id);
  if (!answers) return;
  order.waiting.delete(e.ev.id);
  let lo = at;
  for (const a of answers) if (compareStored(order, a, e) < 0) lo = Math.min(lo, positionOf(events, order, a));
  if (lo === at) return;

  const moving = new Set([e.ev.id]);
  const moved: StoredEvent[] = [];
  const stay: StoredEvent[] = [];
  for (let i = lo; i < at; i++) {
    const x = events[i]!;
    if (referencesOf(x.ev).ancestors.some((id) => moving.has(id))) {
      moving.add(x.ev.id);
      moved.push(x);
    } else {
      stay.push(x);
    }
  }
  // In their old order an event comes after those it answers: their new keys are known first.
  for (const x of moved) {
    const key = placedKey(byId, order, x, referencesOf(x.ev).ancestors);
    if (key) order.placed.set(x, key);
    else order.placed.delete(x);
  }
  moved.sort((a, b) => compareStored(order, a, b));
  events.splice(lo, at - lo + 1, ...stay, e, ...moved);
  if (order.seen.length > lo) order.seen.length = lo;
  order.moves++;
}
