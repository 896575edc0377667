// Relay sync: live first, back-fill in the background, and high-water marks that move only when
// a back-fill has completed (a crash mid back-fill must not let the next start skip a range).

import { describe, expect, it } from "vitest";
import { MemoryRelayGateway } from "../../adapters/memory/memory-relay-gateway.js";
import { RelaySync } from "../../daemon/engine/relays/relay-sync.js";
import type { IngestOutcome } from "../../daemon/engine/ingest/checks.js";
import type { QueryEnd, RelayFilter, RelayGateway, RelaySubscription } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

const T = 1_760_000_000;

function setup(opts: { failing?: (ev: NostrEvent) => boolean } = {}) {
  const p = testProject();
  const gateway = new MemoryRelayGateway("ws://relay.test");
  const marks = new Map<string, number>();
  const ingested: { ev: NostrEvent; quiet: boolean }[] = [];
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const sync = new RelaySync({
    gateway, relays: [gateway.url], coordinate: p.coordinate, markKey: (u) => u,
    agentPubkeys: p.info.agents.map((a) => a.pubkey), userPubkeys: [p.owner.pubkey],
    marks: { highWaterMarks: () => new Map(marks), setHighWaters: (due) => { for (const [r, at] of due) marks.set(r, Math.max(marks.get(r) ?? 0, at)); } },
    overlapSeconds: 60,
    ingest: async (ev, _relay, quiet): Promise<IngestOutcome> => {
      await gate;
      if (opts.failing?.(ev)) throw new Error("ENOSPC: no space left on device");
      ingested.push({ ev, quiet });
      return { status: "accepted", eventId: ev.id, conversationId: ev.id };
    },
    now: () => Date.now(),
  });
  const open = () => (gate = new Promise<void>((r) => (release = r)));
  return { p, gateway, marks, ingested, sync, release: () => release(), hold: open };
}

describe("RelaySync", () => {
  it("hands the live events of one turn over together, in the order they came, an urgent one among them", async () => {
    const p = testProject();
    const gateway = new MemoryRelayGateway("ws://relay.test");
    const slices: string[][] = [];
    const singles: string[] = [];
    const accepted = (ev: NostrEvent): IngestOutcome => ({ status: "accepted", eventId: ev.id, conversationId: ev.id });
    const sync = new RelaySync({
      gateway, relays: [gateway.url], coordinate: p.coordinate, markKey: (u) => u,
      agentPubkeys: p.info.agents.map((a) => a.pubkey), userPubkeys: [p.owner.pubkey],
      marks: { highWaterMarks: () => new Map(), setHighWaters: () => undefined },
      overlapSeconds: 60,
      ingest: async (ev) => (singles.push(ev.id), accepted(ev)),
      ingestMany: (items, outcome) => {
        slices.push(items.map((it) => (it.raw as NostrEvent).id));
        items.forEach((it, i) => outcome(i, accepted(it.raw as NostrEvent)));
      },
      urgent: (ev) => ev.content === "urgent",
      now: () => Date.now(),
    });
    sync.start();
    await sync.idle();
    const turn = [p.root(p.owner, "first"), p.root(p.owner, "urgent"), p.root(p.owner, "third")];
    // Delivered in one turn, as a socket read's frames are.
    for (const ev of turn) void gateway.publish(ev);
    await new Promise((resolve) => setImmediate(resolve));
    expect(slices).toContainEqual(turn.map((e) => e.id));
    expect(singles).toEqual([]);
    await sync.stop();
  });

  it("takes a first history in quietly and sets the marks only once the back-fill is complete", async () => {
    const s = setup();
    for (let i = 0; i < 30; i++) await s.gateway.publish(s.p.root(s.p.owner, `old ${i}`, [], [], T + i));
    s.sync.start();
    // A live event while the back-fill is held: its mark must not be written yet.
    await s.gateway.publish(s.p.root(s.p.owner, "live", [], [], T + 1000));
    s.sync.flushMarks();
    expect(s.marks.size).toBe(0);
    expect(s.sync.catchingUp).toBe(true);

    s.release();
    await s.sync.idle();
    expect(s.sync.catchingUp).toBe(false);
    // The mark is the newest created_at taken in.
    expect(s.marks.get(s.gateway.url)).toBe(T + 1000);
    // The old event that reached the live subscription during the first sync was history too.
    expect(s.ingested.find((x) => x.ev.content === "live")?.quiet).toBe(true);
    const old = s.ingested.filter((x) => x.ev.content.startsWith("old"));
    expect(new Set(old.map((x) => x.ev.id)).size).toBe(30);
    expect(old.every((x) => x.quiet)).toBe(true);
    await s.sync.stop();
  });

  it("a first sync's back-fill takes quietly only what was written before the start: a message written since sets its agent to work, whichever copy comes first", async () => {
    const s = setup();
    await s.gateway.publish(s.p.root(s.p.owner, "old", [], [], T));
    s.sync.start();
    // Written after the start: the live subscription and the back-fill both bring it.
    await s.gateway.publish(s.p.root(s.p.owner, "fresh", [], [], Math.floor(Date.now() / 1000) + 1));
    s.release();
    await s.sync.idle();
    const fresh = s.ingested.filter((x) => x.ev.content === "fresh");
    expect(fresh.length).toBeGreaterThanOrEqual(2);
    expect(fresh.map((x) => x.quiet)).toEqual(fresh.map(() => false));
    expect(s.ingested.filter((x) => x.ev.content === "old").every((x) => x.quiet)).toBe(true);
    await s.sync.stop();
  });

  it("a back-fill stopped midway moves no mark", async () => {
    const s = setup();
    s.marks.set(s.gateway.url, T);
    for (let i = 0; i < 10; i++) await s.gateway.publish(s.p.root(s.p.owner, `missed ${i}`, [], [], T + 100 + i));
    s.sync.start();
    await s.gateway.publish(s.p.root(s.p.owner, "live", [], [], T + 2000));
    const stopping = s.sync.stop();
    s.release();
    await stopping;
    expect(s.marks.get(s.gateway.url)).toBe(T);
  });

  it("a back-fill some of whose events could not be stored moves no mark, and the next one asks for them again", async () => {
    let full = true;
    const s = setup({ failing: (ev) => full && ev.content.startsWith("missed 3") });
    s.marks.set(s.gateway.url, T);
    for (let i = 0; i < 10; i++) await s.gateway.publish(s.p.root(s.p.owner, `missed ${i}`, [], [], T + 100 + i));
    s.sync.start();
    s.release();
    await s.sync.idle();
    s.sync.flushMarks();
    expect(s.marks.get(s.gateway.url)).toBe(T);
    expect(s.sync.lastCatchup?.complete).toBe(false);
    expect(s.ingested.map((x) => x.ev.content)).not.toContain("missed 3");

    full = false; // room again: the next back-fill (a reconnect, a start) takes it in
    await s.sync.backfill();
    s.sync.flushMarks();
    expect(s.ingested.map((x) => x.ev.content)).toContain("missed 3");
    expect(s.marks.get(s.gateway.url)).toBe(T + 109);
    await s.sync.stop();
  });

  it("a live event the log refused holds the mark below it, and the retry back-fills it once writes work: no restart, no reconnect", async () => {
    let full = true;
    const s = setup({ failing: (ev) => full && ev.content === "refused" });
    s.release();
    s.sync.start();
    await s.sync.idle();
    // The first back-fill found nothing and marked when it began.
    const m0 = s.marks.get(s.gateway.url)!;
    // A client whose clock is behind: created_at older than the mark and the overlap (60 s).
    const refused = s.p.root(s.p.owner, "refused", [], [], m0 - 100);
    await s.gateway.publish(refused);
    await new Promise((r) => setTimeout(r, 1_100));
    // A later live event is taken in; its mark must not be written while the refused one is out.
    await s.gateway.publish(s.p.root(s.p.owner, "later"));
    await new Promise((r) => setTimeout(r, 20));
    s.sync.flushMarks();
    expect(s.ingested.map((x) => x.ev.content)).toContain("later");
    expect(s.marks.get(s.gateway.url)).toBe(m0);
    expect(s.sync.backfillStates()[0]).toMatchObject({ complete: false, reason: expect.stringMatching(`1 live events could not be stored \\(oldest created_at ${m0 - 100}\\)`) });
    // Still full: the retry fails and says why (the retry loop backs off on the error).
    await expect(s.sync.retryDue()).rejects.toThrow(/could not be stored/);
    full = false;
    await s.sync.retryDue();
    s.sync.flushMarks();
    // The retry started at or before the refused event (not at the mark minus the overlap).
    expect(s.ingested.filter((x) => x.ev.content === "refused")).toHaveLength(1);
    expect(s.marks.get(s.gateway.url)).toBeGreaterThan(m0);
    expect(s.sync.backfillStates()[0]).toMatchObject({ complete: true });
    await s.sync.stop();
  });

  it("an incomplete back-fill is retried on schedule (retryDue) until it completes; a complete one is not", async () => {
    const s = setup();
    s.marks.set(s.gateway.url, T);
    await s.gateway.publish(s.p.root(s.p.owner, "missed", [], [], T + 100));
    s.gateway.setOnline(false);
    s.release();
    s.sync.start();
    await s.sync.idle();
    expect(s.sync.backfillStates()[0]).toMatchObject({ complete: false, reason: "offline" });
    await expect(s.sync.retryDue()).rejects.toThrow(/offline/);
    s.gateway.setOnline(true);
    await s.sync.retryDue();
    expect(s.ingested.map((x) => x.ev.content)).toContain("missed");
    expect(s.marks.get(s.gateway.url)).toBe(T + 100);
    const fetched = s.sync.lastCatchup?.fetched;
    await s.sync.retryDue(); // nothing due: no back-fill runs
    expect(s.sync.lastCatchup?.fetched).toBe(fetched);
    await s.sync.stop();
  });

  it("after a mark, back-fills from the mark minus the overlap, not quietly", async () => {
    const s = setup();
    s.marks.set(s.gateway.url, T + 500);
    await s.gateway.publish(s.p.root(s.p.owner, "too old", [], [], T + 100));
    await s.gateway.publish(s.p.root(s.p.owner, "in the overlap", [], [], T + 470));
    await s.gateway.publish(s.p.root(s.p.owner, "missed", [], [], T + 600));
    s.release();
    s.sync.start();
    await s.sync.idle();
    expect(s.ingested.map((x) => x.ev.content).sort()).toEqual(["in the overlap", "missed"]);
    expect(s.ingested.every((x) => !x.quiet)).toBe(true);
    expect(s.marks.get(s.gateway.url)).toBe(T + 600);
    await s.sync.stop();
  });

  it("a first sync that finds nothing still records how far it synced, so the next start is not a first sync", async () => {
    const s = setup();
    s.release();
    s.sync.start();
    await s.sync.idle();
    expect(s.marks.get(s.gateway.url)).toBeGreaterThan(T);
    await s.sync.stop();
    // A new event now, with the mark in place: not history.
    const again = setup();
    again.marks.set(again.gateway.url, Math.floor(Date.now() / 1000) - 5);
    again.release();
    again.sync.start();
    await again.gateway.publish(again.p.root(again.p.owner, "fresh"));
    await again.sync.idle();
    await new Promise((r) => setTimeout(r, 50));
    expect(again.ingested.filter((x) => x.ev.content === "fresh").every((x) => !x.quiet)).toBe(true);
    expect(again.ingested.some((x) => x.ev.content === "fresh")).toBe(true);
    await again.sync.stop();
  });

  it("marks are per relay: a relay whose back-fill fails keeps its mark while the other's moves", async () => {
    const p = testProject();
    const a = new MemoryRelayGateway("ws://a.test");
    const b = new MemoryRelayGateway("ws://b.test");
    // Two relays behind one gateway, as the daemon's NdkGateway has them.
    const both: RelayGateway = {
      subscribe: (filters: RelayFilter[], onEvent: (ev: NostrEvent, relay: string) => void): RelaySubscription => {
        const subs = [a.subscribe(filters, onEvent), b.subscribe(filters, onEvent)];
        return { close: () => subs.forEach((x) => x.close()), active: async () => true };
      },
      fetch: async (filters) => [...(await a.fetch(filters)), ...(await b.fetch(filters))],
      query: (relay, filters, onEvent): Promise<QueryEnd> => (relay === a.url ? a : b).query(relay, filters, onEvent),
      publish: async (ev) => [...(await a.publish(ev)), ...(await b.publish(ev))],
    };
    const marks = new Map([[a.url, T], [b.url, T]]);
    const seen: string[] = [];
    const sync = new RelaySync({
      gateway: both, relays: [a.url, b.url], coordinate: p.coordinate, markKey: (u) => u,
      agentPubkeys: p.info.agents.map((x) => x.pubkey), userPubkeys: [p.owner.pubkey],
      marks: { highWaterMarks: () => new Map(marks), setHighWaters: (due) => { for (const [r, at] of due) marks.set(r, Math.max(marks.get(r) ?? 0, at)); } },
      overlapSeconds: 60,
      ingest: async (ev): Promise<IngestOutcome> => {
        seen.push(ev.content);
        return { status: "accepted", eventId: ev.id, conversationId: ev.id };
      },
      now: () => Date.now(),
    });
    await a.publish(p.root(p.owner, "on a", [], [], T + 100));
    await b.publish(p.root(p.owner, "on b", [], [], T + 200));
    b.setOnline(false);
    sync.start();
    await sync.idle();
    expect(seen).toContain("on a");
    expect(sync.lastCatchup).toMatchObject({ complete: false, relays: { [a.url]: { complete: true }, [b.url]: { complete: false } } });
    expect(marks.get(a.url)).toBe(T + 100);
    expect(marks.get(b.url)).toBe(T);
    // Back online: the next back-fill (after a reconnect) brings what b held and moves its mark.
    b.setOnline(true);
    await sync.backfill();
    expect(seen).toContain("on b");
    expect(marks.get(b.url)).toBe(T + 200);
    await sync.stop();
  });
});
