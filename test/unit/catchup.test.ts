// The back-fill pager (daemon/catchup.ts) against a relay held in memory that applies each
// filter's limit, since and until as relays do: every event is taken in once the filters
// overlap or not, a second that holds more than a page is split and taken in whole (or the
// back-fill is incomplete, never "complete but truncated"), a query that ends early leaves the
// back-fill incomplete, and the next page waits while too many events are in flight.

import { beforeEach, describe, expect, it } from "vitest";
import { MemoryRelayGateway } from "../../adapters/memory/memory-relay-gateway.js";
import { catchUp, type CatchupOptions } from "../../daemon/engine/relays/catchup.js";
import type { QueryEnd, RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

const T = 1_760_000_000;
const A = "31933:" + "a".repeat(64) + ":p";
const AGENT = "b".repeat(64);
const USER = "c".repeat(64);
const OTHERS = ["d", "e", "f"].map((c) => c.repeat(64));
const SPACE = { authors: [USER, AGENT, ...OTHERS], enumerable: [{ tag: "#E" as const, kinds: [1111], idsOf: [11] }] };
// The daemon's three overlapping filters (RelaySync.filters).
const FILTERS: RelayFilter[] = [
  { kinds: [11, 1111, 1934], "#a": [A] },
  { kinds: [1111], "#p": [AGENT] },
  { kinds: [1111], "#P": [USER] },
];

let n = 0;
/** An unsigned stand-in: the pager never verifies, the pipeline does. */
function ev(kind: number, createdAt: number, tags: string[][], pubkey = USER): NostrEvent {
  const id = (++n).toString(16).padStart(64, "0");
  return { id, pubkey, created_at: createdAt, kind, tags, content: `event ${n}`, sig: "" };
}

/** `count` events, `perSecond` to a second, that the three filters overlap on: roots, and replies to agents and users. */
function overlapping(count: number, perSecond: number): NostrEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const at = T + Math.floor(i / perSecond);
    if (i % 10 === 0) return ev(11, at, [["a", A]]);
    // Half the replies carry the project tag; those NDK's reply() builds do not.
    return ev(1111, at, [...(i % 2 ? [["a", A]] : []), ["p", AGENT], ["P", USER]]);
  });
}

async function relayWith(events: NostrEvent[]): Promise<MemoryRelayGateway> {
  const relay = new MemoryRelayGateway("ws://relay.test");
  for (const e of events) await relay.publish(e);
  return relay;
}

/** Whether the tests below hand events over a slice at a time (`ingestMany`), as the daemon does, or one by one. */
let sliced = false;

function run(relay: MemoryRelayGateway, o: Partial<CatchupOptions> = {}) {
  const ingested: string[] = [];
  const queries: RelayFilter[][] = [];
  const options: CatchupOptions = {
    query: (filters, onEvent) => {
      queries.push(filters);
      return relay.query(relay.url, filters, onEvent);
    },
    filters: FILTERS, since: undefined, pageSize: 50, maxInFlight: 10_000, space: SPACE,
    ingest: async (e) => {
      ingested.push((e as NostrEvent).id);
      return false;
    },
    ...o,
  };
  // Each event of a slice through the same `ingest`, its answer given back by index.
  if (sliced) options.ingestMany = (evs, done) => evs.forEach((e, i) => void options.ingest(e, false).then((retry) => done(i, retry), () => done(i, false)));
  return { result: catchUp(options), ingested, queries };
}

describe.each([["one by one", false], ["a slice at a time", true]] as const)("catchUp, events handed over %s", (_how, inSlices) => {
  beforeEach(() => {
    sliced = inSlices;
  });

  it("pages overlapping filters down to the start, fetching each event about once", async () => {
    const events = overlapping(600, 6);
    const r = run(await relayWith(events));
    const result = await r.result;
    expect(result).toMatchObject({ complete: true, newest: T + 99 });
    expect(new Set(r.ingested)).toEqual(new Set(events.map((e) => e.id)));
    // A cursor per filter fetched each event once per filter that matches it (up to three times).
    expect(result.fetched).toBeLessThan(events.length * 1.5);
  });

  it("pages filters of very different density without skipping any", async () => {
    const dense = Array.from({ length: 400 }, (_, i) => ev(11, T + 1000 + Math.floor(i / 8), [["a", A]]));
    const sparse = Array.from({ length: 60 }, (_, i) => ev(1111, T + i * 30, [["p", AGENT]]));
    const r = run(await relayWith([...dense, ...sparse]), { since: T + 10 });
    expect(await r.result).toMatchObject({ complete: true });
    const wanted = [...dense, ...sparse].filter((e) => e.created_at >= T + 10).map((e) => e.id);
    expect(new Set(r.ingested)).toEqual(new Set(wanted));
  });

  it("takes everything from a relay that caps `limit` below the page size (as strfry does at 500)", async () => {
    const events = overlapping(600, 3);
    const relay = await relayWith(events);
    const capped = (filters: RelayFilter[], onEvent: (e: unknown) => void) =>
      relay.query(relay.url, filters.map((f) => ({ ...f, limit: Math.min(f.limit ?? 30, 30) })), onEvent);
    const r = run(relay, { query: capped, pageSize: 50, minRelayCap: 10 });
    expect(await r.result).toMatchObject({ complete: true, newest: T + 199 });
    // Taking a short answer for "no more" would have stopped every filter after its first page.
    expect(new Set(r.ingested)).toEqual(new Set(events.map((e) => e.id)));
  });

  it("finishes without paging when no filter matches anything, and a filter with a short answer is done", async () => {
    const none = run(await relayWith([]));
    expect(await none.result).toMatchObject({ complete: true, pages: FILTERS.length, fetched: 0 });
    // Only the `#p` filter matches, 20 events: its first answer holds them all.
    const few = Array.from({ length: 20 }, (_, i) => ev(1111, T + i, [["p", AGENT]]));
    const r = run(await relayWith(few));
    expect(await r.result).toMatchObject({ complete: true });
    expect(new Set(r.ingested)).toEqual(new Set(few.map((e) => e.id)));
    expect(r.queries.length).toBeLessThanOrEqual(FILTERS.length + 1);
  });

  it("takes in every event of a second holding 2,400 (4 authors, kinds 11 and 1111): split by author, then kind; complete", async () => {
    const others = [AGENT, ...OTHERS.slice(0, 2)];
    // The first author writes more than a page alone (300 roots, 800 replies): by kind is needed too.
    const roots = Array.from({ length: 300 }, () => ev(11, T, [["a", A]]));
    const reply = (i: number, by: string) => {
      const root = roots[i % 40]!;
      return ev(1111, T, [["E", root.id], ["P", root.pubkey], ...(i % 4 ? [["a", A]] : []), ["p", AGENT]], by);
    };
    const replies = [
      ...Array.from({ length: 800 }, (_, i) => reply(i, USER)),
      ...Array.from({ length: 1_300 }, (_, i) => reply(i, others[i % 3]!)),
    ];
    const around = [ev(11, T - 5, [["a", A]]), ev(11, T + 5, [["a", A]])];
    const all = [...roots, ...replies, ...around];
    const r = run(await relayWith(all), { pageSize: 1_000 });
    const result = await r.result;
    expect(result, result.reason).toMatchObject({ complete: true, newest: T + 5 });
    expect(new Set(r.ingested)).toEqual(new Set(all.map((e) => e.id)));
    // The probe that learns the page size, the page that shows the second full, the parts of
    // the three filters asked together (a relay sends an event once per REQ) and the parts of a
    // part still full: about three times what the second holds (7,277 when written), not once
    // per filter and level.
    expect(result.fetched).toBeLessThan(all.length * 3.5);
  });

  it("never calls a second it cannot split complete: one author, one kind, more than a page is incomplete, and paging goes on past it", async () => {
    const stuck = Array.from({ length: 80 }, () => ev(11, T + 10, [["a", A]]));
    const older = Array.from({ length: 40 }, (_, i) => ev(11, T + i % 5, [["a", A]], AGENT));
    const r = run(await relayWith([...stuck, ...older]), { pageSize: 30, minRelayCap: 10 });
    const result = await r.result;
    expect(result.complete).toBe(false);
    expect(result.reason).toMatch(new RegExp(`second ${T + 10}: .*cannot be split further`));
    // What could be fetched was: a page of the stuck second, and every older event.
    for (const e of older) expect(r.ingested).toContain(e.id);
  });

  it("fetches one author's replies beyond a page by conversation, but cannot prove that second whole: incomplete", async () => {
    const roots = Array.from({ length: 4 }, () => ev(11, T, [["a", A]]));
    const replies = Array.from({ length: 80 }, (_, i) => ev(1111, T, [["E", roots[i % 4]!.id], ["a", A]]));
    const r = run(await relayWith([...roots, ...replies]), { pageSize: 30, minRelayCap: 10 });
    const result = await r.result;
    expect(new Set(r.ingested)).toEqual(new Set([...roots, ...replies].map((e) => e.id)));
    expect(result.complete).toBe(false);
    expect(result.reason).toMatch(/NIP-01 cannot show that none is left/);
  });

  it("takes a small answer for all there is, not for a relay's cap: one event in the window pages nothing more", async () => {
    const one = [ev(11, T, [["a", A]])];
    const r = run(await relayWith(one), { pageSize: 1_000 });
    expect(await r.result).toMatchObject({ complete: true, fetched: 1 });
    expect(r.queries).toHaveLength(FILTERS.length);
  });

  it("splits a full second on a relay that caps `limit` below the page size", async () => {
    const events = Array.from({ length: 70 }, (_, i) => ev(i % 2 ? 11 : 1111, T, [["a", A], ["E", "9".repeat(64)]], i % 3 ? USER : AGENT));
    const relay = await relayWith(events);
    const capped = (filters: RelayFilter[], onEvent: (e: unknown) => void) =>
      relay.query(relay.url, filters.map((f) => ({ ...f, limit: Math.min(f.limit ?? 30, 30) })), onEvent);
    const r = run(relay, { query: capped, pageSize: 50, minRelayCap: 10 });
    expect(await r.result).toMatchObject({ complete: true });
    expect(new Set(r.ingested)).toEqual(new Set(events.map((e) => e.id)));
  });

  it("is incomplete, with the reason, when a query ends before EOSE; what arrived is still taken in", async () => {
    const events = Array.from({ length: 120 }, (_, i) => ev(11, T + i, [["a", A]]));
    const relay = await relayWith(events);
    let calls = 0;
    const r = run(relay, {
      query: async (filters, onEvent): Promise<QueryEnd> => {
        if (++calls === 2) {
          onEvent(events[0]);
          return { complete: false, reason: "connection lost" };
        }
        return relay.query(relay.url, filters, onEvent);
      },
    });
    const result = await r.result;
    expect(result).toMatchObject({ complete: false, reason: "connection lost", pages: 2 });
    expect(r.ingested).toHaveLength(51);
  });

  it("holds the next page back while more than maxInFlight events are being ingested", async () => {
    const events = Array.from({ length: 200 }, (_, i) => ev(11, T + i, [["a", A]]));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const r = run(await relayWith(events), { maxInFlight: 20, ingest: () => gate.then(() => false) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.queries).toHaveLength(1);
    release();
    const result = await r.result;
    expect(result.complete).toBe(true);
    // The first page comes twice (the page size is learned with one filter alone first), and
    // each page asks its boundary second again: a page and a few duplicates more.
    expect(result.fetched).toBeGreaterThanOrEqual(250);
    expect(result.fetched).toBeLessThan(260);
    expect(r.queries.length).toBeGreaterThan(1);
  });

  it("takes in again, after the last page and oldest first, the events ingest could not place yet", async () => {
    const events = Array.from({ length: 120 }, (_, i) => ev(1111, T + i, [["p", AGENT]]));
    const tries: { id: string; again: boolean }[] = [];
    const r = run(await relayWith(events), {
      // Every third event is a reply met before its root.
      ingest: async (e, again) => {
        const id = (e as NostrEvent).id;
        tries.push({ id, again });
        return !again && events.indexOf(e as NostrEvent) % 3 === 0;
      },
    });
    expect(await r.result).toMatchObject({ complete: true });
    const retried = tries.filter((t) => t.again).map((t) => t.id);
    expect(retried).toEqual(events.filter((_, i) => i % 3 === 0).map((e) => e.id));
    // Each was tried again only once every page had been taken in.
    const lastFirstTry = tries.map((t) => t.again).lastIndexOf(false);
    expect(tries.findIndex((t) => t.again)).toBeGreaterThan(lastFirstTry);
  });

  it("stops between pages when asked, incomplete", async () => {
    const events = Array.from({ length: 200 }, (_, i) => ev(11, T + i, [["a", A]]));
    let stop = false;
    const r = run(await relayWith(events), { stopped: () => stop, ingest: async () => ((stop = true), false) });
    expect(await r.result).toMatchObject({ complete: false, reason: "stopped", pages: 1 });
  });
});
