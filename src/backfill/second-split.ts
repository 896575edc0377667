// How a filter that matches a whole page within one second is split into narrower filters for
// that second (NIP-01 has no cursor below the second). In this order, each as long as it
// narrows anything:
//   1. by author (the filter's own `authors`, or everyone who can author what tenexd accepts);
//   2. by kind;
//   3. by the values of a tag the filter already asks for with several values (`#p` of agents);
//   4. by the values of a tag the filter does not ask for, enumerated from what was seen
//      (`#E`: the conversation roots replies in that second point to).
// Splits 1-3 cover the filter: an event it matches matches one of the parts (OR within a
// field). Split 4 does not: a value nobody has seen is not asked for, so what it fetches is
// taken in, but the second cannot be proven complete with NIP-01 and the back-fill stays
// incomplete (second-walk.ts). A filter none of these narrows is a leaf that cannot be split.

import type { RelayFilter } from "../ports.js";

export interface SplitSpace {
  /** Everyone whose events tenexd can accept: a filter without `authors` is split over them. */
  authors: readonly string[];
  /** Tags that may be enumerated (rule 4), with the kinds that carry them, and the values seen. */
  enumerable: readonly { tag: `#${string}`; kinds: readonly number[]; values: readonly string[] }[];
}

export interface Split {
  by: string;
  filters: RelayFilter[];
  /** True when the parts together match every event the filter matches. */
  covers: boolean;
}

// Relays refuse or answer nothing to filters on many tags at once (@nostr-relay's repository
// answers [] to more than two): a split never makes a filter ask for more tags than this.
export const MAX_TAGS_PER_FILTER = 2;
// Rule 4 asks for the seen values in at most this many groups; a group that is still full is
// split value by value by rule 3.
export const ENUMERATED_GROUPS = 8;

export function splitSecond(filter: RelayFilter, space: SplitSpace): Split | undefined {
  const authors = filter.authors ?? space.authors;
  if (authors.length > 1 || (filter.authors === undefined && authors.length === 1)) {
    return { by: "author", filters: authors.map((a) => ({ ...filter, authors: [a] })), covers: true };
  }
  if ((filter.kinds?.length ?? 0) > 1) {
    return { by: "kind", filters: filter.kinds!.map((k) => ({ ...filter, kinds: [k] })), covers: true };
  }
  const tags = tagKeys(filter);
  const many = tags.find((t) => filter[t]!.length > 1);
  if (many) return { by: many, filters: filter[many]!.map((v) => ({ ...filter, [many]: [v] })), covers: true };
  if (tags.length >= MAX_TAGS_PER_FILTER) return undefined;
  for (const e of space.enumerable) {
    const carried = filter.kinds !== undefined && filter.kinds.every((k) => e.kinds.includes(k));
    if (!carried || filter[e.tag] !== undefined || e.values.length === 0) continue;
    return { by: e.tag, filters: groups(e.values, ENUMERATED_GROUPS).map((g) => ({ ...filter, [e.tag]: g })), covers: false };
  }
  return undefined;
}

/** The tag keys (`#x`) a filter asks for. */
export function tagKeys(filter: RelayFilter): `#${string}`[] {
  return Object.keys(filter).filter((k): k is `#${string}` => k.startsWith("#") && filter[k as `#${string}`] !== undefined);
}

/** `values` in at most `n` groups of near-equal size, in order. */
function groups(values: readonly string[], n: number): string[][] {
  const size = Math.ceil(values.length / n);
  const out: string[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}
