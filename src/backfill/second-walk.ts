// The events of one second too full to page through (page-step.ts hands it out), fetched by
// splitting its filter (second-split.ts) until every part answers with less than a page. This
// decides only: the caller asks the relay for `next()` (since = until = the second), hands the
// answer to `answer()`, and repeats until `next()` is empty; then `verdict()` says whether the
// second was seen whole. It was if every part ended below a page and every split on its way
// covered its filter. A part that is still full and cannot be split, or a part reached through
// an enumeration NIP-01 cannot prove complete, leaves the back-fill incomplete: never skipped.

import type { RelayFilter } from "../ports.js";
import { matches } from "./page-step.js";
import { splitSecond, type SplitSpace } from "./second-split.js";

export interface WalkSpace {
  authors: readonly string[];
  /** Tags to enumerate from what is seen in the second: the tag's values on events of `kinds`,
   *  and the ids of events of `idsOf` (a root's id is its replies' `E`). */
  enumerable: readonly { tag: `#${string}`; kinds: readonly number[]; idsOf?: readonly number[] }[];
}

export type SecondVerdict = { complete: true } | { complete: false; reason: string };

interface Part {
  filter: RelayFilter;
  /** Every split on the way to it covered its filter. */
  covered: boolean;
}

const EVENT_ID = /^[0-9a-f]{64}$/;

export class SecondWalk {
  private readonly waiting: Part[] = [];
  private readonly asked = new Map<RelayFilter, Part>();
  private readonly seen: Map<string, Set<string>>;
  private readonly unsplittable: RelayFilter[] = [];
  private unproven: RelayFilter | undefined;

  /** `sample`: the page that showed the second full (its events of that second seed the enumerations). */
  constructor(filter: RelayFilter, readonly second: number, private readonly limit: number, private readonly space: WalkSpace, sample: readonly unknown[]) {
    this.seen = new Map(space.enumerable.map((e) => [e.tag, new Set<string>()]));
    this.see(sample);
    const { since: _s, until: _u, limit: _l, ...bare } = filter;
    this.expand({ filter: { ...bare, since: second, until: second, limit }, covered: true });
  }

  /** The next filters to ask in one REQ, at most `max`; empty once every part has been answered. */
  next(max: number): RelayFilter[] {
    const parts = this.waiting.splice(0, max);
    for (const p of parts) this.asked.set(p.filter, p);
    return parts.map((p) => p.filter);
  }

  /** The events the relay sent for `asked` (the filters `next()` gave, one REQ). */
  answer(asked: readonly RelayFilter[], events: readonly unknown[]): void {
    this.see(events);
    for (const f of asked) {
      const part = this.asked.get(f);
      if (!part) continue;
      this.asked.delete(f);
      // The parts of one split are asked together: an event several match counts for each, and
      // a part below a page got all its matches (see nextPage), so the count is exact.
      const count = events.reduce<number>((n, ev) => (matches(f, ev) ? n + 1 : n), 0);
      if (count >= this.limit) this.expand(part);
      else if (!part.covered) this.unproven ??= f;
    }
  }

  verdict(): SecondVerdict {
    const stuck = this.unsplittable[0];
    if (stuck) {
      const more = this.unsplittable.length > 1 ? ` (and ${this.unsplittable.length - 1} more)` : "";
      return { complete: false, reason: `second ${this.second}: a page (${this.limit}) or more of events match ${describe(stuck)}${more}, which cannot be split further` };
    }
    if (this.unproven) {
      return {
        complete: false,
        reason: `second ${this.second}: a page (${this.limit}) or more of events match ${describe(this.unproven, this.space.enumerable.map((e) => e.tag))}; ` +
          "fetched by the conversations seen, but NIP-01 cannot show that none is left",
      };
    }
    return { complete: true };
  }

  private expand(part: Part): void {
    const split = splitSecond(part.filter, this.spaceNow());
    if (!split) {
      this.unsplittable.push(part.filter);
      return;
    }
    for (const filter of split.filters) this.waiting.push({ filter, covered: part.covered && split.covers });
  }

  private spaceNow(): SplitSpace {
    return { authors: this.space.authors, enumerable: this.space.enumerable.map((e) => ({ ...e, values: [...this.seen.get(e.tag)!] })) };
  }

  private see(events: readonly unknown[]): void {
    for (const raw of events) {
      const ev = raw as { id?: unknown; kind?: unknown; created_at?: unknown; tags?: unknown } | null;
      if (ev?.created_at !== this.second || typeof ev.kind !== "number") continue;
      for (const e of this.space.enumerable) {
        const values = this.seen.get(e.tag)!;
        if (e.idsOf?.includes(ev.kind) && typeof ev.id === "string" && EVENT_ID.test(ev.id)) values.add(ev.id);
        if (!e.kinds.includes(ev.kind) || !Array.isArray(ev.tags)) continue;
        for (const t of ev.tags) {
          if (Array.isArray(t) && t[0] === e.tag.slice(1) && typeof t[1] === "string" && EVENT_ID.test(t[1])) values.add(t[1]);
        }
      }
    }
  }
}

/** A short, readable account of a filter for a reason. */
function describe(f: RelayFilter, omit: readonly string[] = []): string {
  const parts: string[] = [];
  if (f.authors) parts.push(`author${f.authors.length > 1 ? "s" : ""} ${f.authors.map((a) => `${a.slice(0, 8)}…`).join(",")}`);
  if (f.kinds) parts.push(`kind ${f.kinds.join(",")}`);
  for (const [k, v] of Object.entries(f)) if (k.startsWith("#") && Array.isArray(v) && !omit.includes(k)) parts.push(`${k} ${v.map((x) => String(x).slice(0, 12)).join(",")}`);
  return parts.join(", ");
}
