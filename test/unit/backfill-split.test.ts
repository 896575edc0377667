// The pure rules of a back-fill past a second holding more than a page (src/backfill/): when a
// page shows a full second, how a full filter is split, and when a split second counts as seen
// whole. Table-driven, then a second of 2,400 events from several authors and kinds walked to
// the end against an answer computed from the events themselves.

import { describe, expect, it } from "vitest";
import { backfillSince, settleBackfill } from "../../src/backfill/completeness.js";
import { nextPage, pageRequest, type Cursor } from "../../src/backfill/page-step.js";
import { audienceOf, authorsOf, projectFilters } from "../../src/backfill/project-filters.js";
import { splitSecond, type SplitSpace } from "../../src/backfill/second-split.js";
import { SecondWalk, type WalkSpace } from "../../src/backfill/second-walk.js";
import { matches } from "../../src/backfill/page-step.js";
import type { RelayFilter } from "../../src/ports.js";

const T = 1_760_000_000;
const [U1, U2, AG] = ["1", "2", "a"].map((c) => c.repeat(64)) as [string, string, string];
const COORD = `31933:${U1}:p`;
const hex = (n: number) => n.toString(16).padStart(64, "0");

let n = 0;
function ev(pubkey: string, kind: number, at: number, tags: string[][] = [["a", COORD]]) {
  return { id: hex(++n), pubkey, kind, created_at: at, tags, content: "", sig: "" };
}

describe("project filters", () => {
  it("name the project's people on every filter, each once", () => {
    const a = { coordinate: COORD, users: [U1, U2], agents: [AG, U2] };
    expect(authorsOf(a)).toEqual([U1, U2, AG]);
    const filters = projectFilters(a);
    expect(filters.map((f) => Object.keys(f).find((k) => k.startsWith("#")))).toEqual(["#a", "#p", "#P", "#p"]);
    // Both dialects: kind 1 is asked for with the project tag and, for replies without it, by `#p`.
    expect(filters.filter((f) => f.kinds!.includes(1)).map((f) => Object.keys(f).find((k) => k.startsWith("#")))).toEqual(["#a", "#p", "#p"]);
    for (const f of filters) expect(f.authors).toEqual([U1, U2, AG]);
  });

  it("take a project's audience from its info: the agents' keys, its whitelist as the users", () => {
    const info = {
      coordinate: COORD, ownerPubkey: U1, whitelist: [U1, U2],
      agents: [{ slug: "a", name: "A", pubkey: AG, role: "a", isOrchestrator: true }],
    };
    expect(audienceOf(info)).toEqual({ coordinate: COORD, agents: [AG], users: [U1, U2] });
  });
});

describe("nextPage: when a page shows a full second", () => {
  const f: RelayFilter = { kinds: [11], "#a": [COORD] };
  const cases: { name: string; times: number[]; until?: number; ceiling?: number; want: { full: number[]; until: number | undefined; ceiling?: number; done?: boolean } }[] = [
    { name: "a short page: done", times: [T, T - 1], want: { full: [], until: undefined, done: true } },
    { name: "a full page over several seconds: go on from its oldest", times: [T, T, T - 1, T - 2], want: { full: [], until: T - 2 } },
    { name: "a full page within one second, first page: that second is full", times: [T, T, T, T], want: { full: [T], until: T - 1, ceiling: T - 1 } },
    { name: "a full page at the page's own until: full", times: [T - 5, T - 5, T - 5, T - 5], until: T - 5, want: { full: [T - 5], until: T - 6, ceiling: T - 6 } },
    { name: "past a full second, the ceiling follows the boundary", times: [T - 3, T - 3, T - 4, T - 9], ceiling: T - 3, want: { full: [], until: T - 9, ceiling: T - 9 } },
    { name: "a full second at `since`: nothing older to page", times: [T - 60, T - 60, T - 60, T - 60], until: T - 60, want: { full: [T - 60], until: undefined, done: true } },
  ];
  it.each(cases)("$name", ({ times, until, ceiling, want }) => {
    const cursors: Cursor[] = [ceiling === undefined ? { filter: f } : { filter: f, ceiling }];
    const paged = pageRequest(cursors, T - 60, until, 4);
    const page = times.map((t) => ev(U1, 11, t));
    const step = nextPage(cursors, paged, page, 4, T - 60);
    expect(step.full.map((x) => x.second)).toEqual(want.full);
    expect(step.until).toBe(want.until);
    if (want.done) expect(step.cursors).toEqual([]);
    else expect(step.cursors[0]?.ceiling).toBe(want.ceiling);
  });

  it("a filter past a full second asks below it while the others page on from the shared until", () => {
    const other: RelayFilter = { kinds: [1111], "#p": [AG] };
    const req = pageRequest([{ filter: f, ceiling: T - 10 }, { filter: other }], undefined, T - 2, 50);
    expect(req.map((r) => r.until)).toEqual([T - 10, T - 2]);
  });
});

describe("splitSecond", () => {
  const space: SplitSpace = { authors: [U1, U2, AG], enumerable: [{ tag: "#E", kinds: [1111], values: [hex(7), hex(8)] }] };
  const cases: { name: string; filter: RelayFilter; by?: string; parts?: RelayFilter[]; covers?: boolean }[] = [
    { name: "several authors: one part each", filter: { authors: [U1, U2], kinds: [11, 1111] }, by: "author",
      parts: [{ authors: [U1], kinds: [11, 1111] }, { authors: [U2], kinds: [11, 1111] }], covers: true },
    { name: "no authors: everyone who can be accepted, even one", filter: { kinds: [11] }, by: "author",
      parts: [U1, U2, AG].map((a) => ({ kinds: [11], authors: [a] })), covers: true },
    { name: "one author, several kinds: one part per kind", filter: { authors: [U1], kinds: [11, 1111, 1934] }, by: "kind",
      parts: [11, 1111, 1934].map((k) => ({ authors: [U1], kinds: [k] })), covers: true },
    { name: "one author and kind, a tag asked with several values: one part per value", filter: { authors: [U1], kinds: [1111], "#p": [AG, U2] },
      by: "#p", parts: [{ authors: [U1], kinds: [1111], "#p": [AG] }, { authors: [U1], kinds: [1111], "#p": [U2] }], covers: true },
    { name: "replies of one author: by the conversations seen, which does not cover", filter: { authors: [U1], kinds: [1111], "#a": [COORD] },
      by: "#E", parts: [{ authors: [U1], kinds: [1111], "#a": [COORD], "#E": [hex(7)] }, { authors: [U1], kinds: [1111], "#a": [COORD], "#E": [hex(8)] }], covers: false },
    { name: "roots of one author: nothing left to split on", filter: { authors: [U1], kinds: [11], "#a": [COORD] } },
    { name: "already two tags: never a third (relays answer nothing to it)", filter: { authors: [U1], kinds: [1111], "#a": [COORD], "#P": [U1] } },
    { name: "already enumerated: nothing more", filter: { authors: [U1], kinds: [1111], "#E": [hex(7)] } },
  ];
  it.each(cases)("$name", ({ filter, by, parts, covers }) => {
    const split = splitSecond(filter, space);
    if (by === undefined) return expect(split).toBeUndefined();
    expect(split).toEqual({ by, filters: parts, covers });
  });

  it("enumerates no values it has not seen, and groups many into a few filters", () => {
    const none = splitSecond({ authors: [U1], kinds: [1111] }, { authors: [U1], enumerable: [{ tag: "#E", kinds: [1111], values: [] }] });
    expect(none).toBeUndefined();
    const many = splitSecond({ authors: [U1], kinds: [1111] }, { authors: [U1], enumerable: [{ tag: "#E", kinds: [1111], values: Array.from({ length: 100 }, (_, i) => hex(i)) }] });
    expect(many?.filters).toHaveLength(8);
    expect(many?.filters.flatMap((f) => f["#E"])).toHaveLength(100);
  });
});

describe("settling a back-fill", () => {
  it.each([
    { paged: { complete: true }, notStored: 0, refused: 0, want: { complete: true } },
    { paged: { complete: false, reason: "connection lost" }, notStored: 0, refused: 0, want: { complete: false, reason: "connection lost" } },
    { paged: { complete: true }, notStored: 3, refused: 0, want: { complete: false, reason: "3 events could not be stored" } },
    { paged: { complete: true }, notStored: 0, refused: 2, want: { complete: false, reason: "2 live events could not be stored meanwhile" } },
  ])("%j", ({ paged, notStored, refused, want }) => {
    expect(settleBackfill(paged, notStored, refused)).toEqual(want);
  });

  it.each([
    { mark: undefined, refused: undefined, want: undefined },
    { mark: T, refused: undefined, want: T - 300 },
    { mark: T, refused: T + 50, want: T - 300 },
    { mark: T, refused: T - 1000, want: T - 1300 },
    { mark: 100, refused: undefined, want: 0 },
  ])("starts at the mark or the oldest refused event, minus the overlap: %j", ({ mark, refused, want }) => {
    expect(backfillSince(mark, refused, 300)).toBe(want);
  });
});

/** The events a relay would answer to `filters`, each filter's `limit` newest (ties by id), deduplicated. */
function answer(events: ReturnType<typeof ev>[], filters: readonly RelayFilter[]) {
  const out = new Map<string, ReturnType<typeof ev>>();
  const sorted = [...events].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1));
  for (const f of filters) for (const e of sorted.filter((x) => matches(f, x)).slice(0, f.limit)) out.set(e.id, e);
  return [...out.values()];
}

function walkToEnd(events: ReturnType<typeof ev>[], filter: RelayFilter, limit: number, space: WalkSpace) {
  const sample = answer(events, [{ ...filter, limit }]);
  const walk = new SecondWalk(filter, T, limit, space, sample);
  const seen = new Set(sample.map((e) => e.id));
  let requests = 0;
  for (let asked = walk.next(8); asked.length > 0; asked = walk.next(8)) {
    const got = answer(events, asked);
    for (const e of got) seen.add(e.id);
    walk.answer(asked, got);
    requests++;
  }
  return { verdict: walk.verdict(), seen, requests };
}

describe("SecondWalk", () => {
  const space: WalkSpace = { authors: [U1, U2, AG], enumerable: [{ tag: "#E", kinds: [1111], idsOf: [11] }] };
  const filter: RelayFilter = { kinds: [11, 1111], "#a": [COORD], authors: [U1, U2, AG] };

  it("a second of 2,400 events from three authors and two kinds: every one fetched, seen whole", () => {
    const roots = Array.from({ length: 200 }, () => ev(U1, 11, T));
    const replies = Array.from({ length: 2_200 }, (_, i) =>
      ev([U1, U2, AG][i % 3]!, 1111, T, [["a", COORD], ["E", roots[i % 50]!.id]]));
    const all = [...roots, ...replies];
    const { verdict, seen } = walkToEnd(all, filter, 1_000, space);
    expect(verdict).toEqual({ complete: true });
    expect(seen.size).toBe(all.length);
  });

  it("one author's replies over a page: fetched by the conversations seen in the second, but not proven whole", () => {
    const roots = Array.from({ length: 5 }, () => ev(U1, 11, T));
    const replies = Array.from({ length: 1_200 }, (_, i) => ev(U2, 1111, T, [["a", COORD], ["E", roots[i % 5]!.id]]));
    const all = [...roots, ...replies];
    const { verdict, seen } = walkToEnd(all, filter, 1_000, space);
    expect(seen.size).toBe(all.length);
    expect(verdict.complete).toBe(false);
    expect(!verdict.complete && verdict.reason).toMatch(new RegExp(`second ${T}: .*author 22222222…, kind 1111.*cannot show`));
  });

  it("one author's roots over a page: a leaf that cannot be split, never called complete", () => {
    const all = Array.from({ length: 1_001 }, () => ev(AG, 11, T));
    const { verdict } = walkToEnd(all, filter, 1_000, space);
    expect(verdict.complete).toBe(false);
    expect(!verdict.complete && verdict.reason).toMatch(/cannot be split further/);
  });

  it("a stranger's events are never asked for: a flood of them leaves nothing to split", () => {
    const stranger = "9".repeat(64);
    const all = [...Array.from({ length: 3_000 }, () => ev(stranger, 11, T)), ...Array.from({ length: 20 }, () => ev(U1, 11, T))];
    const { verdict, seen, requests } = walkToEnd(all, filter, 1_000, space);
    expect(verdict).toEqual({ complete: true });
    expect([...seen].filter((id) => all.find((e) => e.id === id)!.pubkey === stranger)).toEqual([]);
    expect(requests).toBe(1);
  });
});
