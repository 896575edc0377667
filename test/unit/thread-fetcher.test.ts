// Threads of replies whose root is unknown: fetched at once when no back-fill runs, held while
// one runs and then fetched only if the back-fill did not bring the root, each root once.

import { describe, expect, it } from "vitest";
import { MemoryRelayGateway } from "../../adapters/memory/memory-relay-gateway.js";
import { ThreadFetcher } from "../../daemon/engine/relays/thread-fetcher.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, testProject } from "../helpers/events.js";

function setup(refuse: () => boolean = () => false) {
  const p = testProject();
  const relay = new MemoryRelayGateway("ws://relay.test");
  const held = new Set<string>();
  const ingested: { ev: NostrEvent; quiet: boolean }[] = [];
  let busy = false;
  const errors: unknown[] = [];
  const fetcher = new ThreadFetcher({
    gateway: relay, relays: [relay.url], authors: [...p.info.whitelist, ...p.info.agents.map((a) => a.pubkey)],
    ingest: async (ev, _relay, quiet) => {
      if (refuse()) throw new Error("ENOSPC: no space left on device");
      ingested.push({ ev: ev as NostrEvent, quiet });
      held.add((ev as NostrEvent).id);
      return { status: "accepted" as const, eventId: (ev as NostrEvent).id, conversationId: "c" };
    },
    holds: (id) => held.has(id),
    busy: () => busy,
    onError: (_root, err) => errors.push(err),
  });
  return { p, relay, held, ingested, fetcher, errors, setBusy: (b: boolean) => (busy = b) };
}

let threads = 0;
async function thread(s: ReturnType<typeof setup>, replies: number) {
  const root = s.p.root(s.p.owner, `thread ${++threads}`);
  const rs = Array.from({ length: replies }, (_, i) => s.p.reply(s.p.agents.planner!, root, `reply ${i}`));
  for (const e of [root, ...rs]) await s.relay.publish(e);
  return { root, replies: rs };
}

describe("ThreadFetcher", () => {
  it("fetches the root and every reply at once when no back-fill runs", async () => {
    const s = setup();
    const t = await thread(s, 3);
    s.fetcher.request(t.root.id, false);
    s.fetcher.request(t.root.id, false); // asked twice, fetched once
    await s.fetcher.idle();
    expect(s.ingested.map((x) => x.ev.id).sort()).toEqual([t.root, ...t.replies].map((e) => e.id).sort());
    expect(s.ingested.every((x) => !x.quiet)).toBe(true);
    expect(s.errors).toEqual([]);
  });

  it("asks for the project's people only: a stranger's replies in the thread are never fetched", async () => {
    const s = setup();
    const t = await thread(s, 2);
    const stranger = newKey();
    const junk = Array.from({ length: 5 }, (_, i) => s.p.reply(stranger, t.root, `junk ${i}`));
    for (const e of junk) await s.relay.publish(e);
    s.fetcher.request(t.root.id, false);
    await s.fetcher.idle();
    expect(s.ingested.map((x) => x.ev.id).sort()).toEqual([t.root, ...t.replies].map((e) => e.id).sort());
  });

  it("waits for a running back-fill, then fetches only the threads whose root it did not bring, quietly if they were history", async () => {
    const s = setup();
    const brought = await thread(s, 2);
    const missing = await thread(s, 2);
    s.setBusy(true);
    s.fetcher.request(brought.root.id, true);
    s.fetcher.request(missing.root.id, true);
    await s.fetcher.idle();
    expect(s.ingested).toEqual([]);
    // The back-fill brought one root itself.
    s.held.add(brought.root.id);
    s.setBusy(false);
    s.fetcher.backfillDone();
    await s.fetcher.idle();
    expect(s.ingested.map((x) => x.ev.id).sort()).toEqual([missing.root, ...missing.replies].map((e) => e.id).sort());
    expect(s.ingested.every((x) => x.quiet)).toBe(true);
  });

  it("a thread the log refused is kept and fetched again by retryFailed once writes work, not before", async () => {
    let full = true;
    const s = setup(() => full);
    const t = await thread(s, 2);
    s.fetcher.request(t.root.id, false);
    await s.fetcher.idle();
    expect(s.ingested).toEqual([]);
    expect(String(s.errors[0])).toMatch(/3 events could not be stored/);
    expect(await s.fetcher.retryFailed()).toBe(1);
    full = false;
    expect(await s.fetcher.retryFailed()).toBe(0);
    expect(s.ingested.map((x) => x.ev.id).sort()).toEqual([t.root, ...t.replies].map((e) => e.id).sort());
    expect(await s.fetcher.retryFailed()).toBe(0);
  });

  it("reports a relay that cannot answer", async () => {
    const s = setup();
    const t = await thread(s, 1);
    s.relay.setOnline(false);
    s.fetcher.request(t.root.id, false);
    await s.fetcher.idle();
    expect(s.errors).toHaveLength(1);
    expect(String(s.errors[0])).toMatch(/offline/);
  });
});
