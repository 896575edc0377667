// The NDK relay gateway against two real relays on 127.0.0.1, and the key signer with it.

import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { verifyEvent } from "nostr-tools/pure";
import { NDKSubscription } from "@nostr-dev-kit/ndk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GatewayClosedError, PublishRejectedError } from "../../adapters/nostr/errors.js";
import { KeySigner, InvalidSecretKeyError } from "../../adapters/nostr/key-signer.js";
import { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign } from "../helpers/events.js";
import { publishManyRaw, publishRaw, queryRaw, startTestRelay, type TestRelay } from "../helpers/relay.js";

const wire = (ev: NostrEvent): NostrEvent => JSON.parse(JSON.stringify(ev)) as NostrEvent;

async function until(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("NdkGateway on two relays", () => {
  let a: TestRelay;
  let b: TestRelay;
  let gw: NdkGateway;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestRelay(), startTestRelay()]);
    gw = await NdkGateway.connect({ relays: [a.url, b.url], connectTimeoutMs: 5_000, publishTimeoutMs: 3_000 });
  });
  afterAll(async () => {
    await gw.close();
    for (const r of [a, b]) {
      await r.close();
      rmSync(dirname(r.dbPath), { recursive: true, force: true });
    }
  });

  it("connects to both and reports them healthy", () => {
    const health = gw.health();
    expect(health.map((h) => h.url)).toEqual([a.url, b.url]);
    expect(health.every((h) => h.connected && h.reconnects === 0)).toBe(true);
  });

  it("publishes an event signed by KeySigner and names every relay that said OK", async () => {
    const key = newKey();
    const signer = new KeySigner(key.sk);
    expect(signer.pubkey).toBe(key.pubkey);
    const ev = await signer.sign({ kind: 1111, created_at: Math.floor(Date.now() / 1000), tags: [["a", "31933:x:y"]], content: "hello" });
    expect(verifyEvent({ ...ev })).toBe(true);

    expect((await gw.publish(ev)).sort()).toEqual([a.url, b.url].sort());
    for (const r of [a, b]) expect(await queryRaw(r.url, { ids: [ev.id] })).toEqual([ev]);
    // A relay answers a duplicate with OK true: publishing again is accepted again.
    expect(await gw.publish(ev)).toHaveLength(2);
  });

  it("rejects with PublishRejectedError, and each relay's reason, when no relay accepts", async () => {
    const good = sign(newKey(), 1111, "genuine");
    const forged = { ...sign(newKey(), 1111, "forged"), sig: good.sig };
    const err = await gw.publish(forged).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublishRejectedError);
    expect(Object.keys((err as PublishRejectedError).reasons).sort()).toEqual([a.url, b.url].sort());
    expect((err as PublishRejectedError).message).toMatch(/invalid/);
  });

  it("fetches to EOSE from both relays, one copy per event", async () => {
    const key = newKey();
    const onBoth = sign(key, 11, "on both");
    const onlyA = sign(key, 1111, "only on a");
    const onlyB = sign(key, 1111, "only on b");
    await publishManyRaw(a.url, [onBoth, onlyA]);
    await publishManyRaw(b.url, [onBoth, onlyB]);

    const started = Date.now();
    const got = await gw.fetch([{ authors: [key.pubkey] }], 8_000);
    // EOSE ended it, not the timeout.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(got.map((e) => e.id).sort()).toEqual([onBoth.id, onlyA.id, onlyB.id].sort());
    expect(got.find((e) => e.id === onlyA.id)).toEqual(wire(onlyA));
  });

  it("streams one relay's stored events to its EOSE over its own connection, as the filters ask", async () => {
    const key = newKey();
    const T = Math.floor(Date.now() / 1000) - 1_000;
    const events = Array.from({ length: 30 }, (_, i) => sign(key, 1111, `stored ${i}`, [], T + i));
    await publishManyRaw(a.url, events);

    const got: unknown[] = [];
    const end = await gw.query(a.url, [{ authors: [key.pubkey], limit: 10 }], (ev) => got.push(ev), 8_000);
    expect(end).toEqual({ complete: true });
    // The relay's 10 newest, as sent (the caller checks them).
    expect(got.map((e) => (e as NostrEvent).id).sort()).toEqual(events.slice(20).map((e) => e.id).sort());
    const older: unknown[] = [];
    expect(await gw.query(a.url, [{ authors: [key.pubkey], until: T + 9 }], (ev) => older.push(ev), 8_000)).toEqual({ complete: true });
    expect(older).toHaveLength(10);
    // Only on a: b holds none of them.
    const fromB: unknown[] = [];
    expect(await gw.query(b.url, [{ authors: [key.pubkey] }], (ev) => fromB.push(ev), 8_000)).toEqual({ complete: true });
    expect(fromB).toEqual([]);
    // A relay that is not configured is not asked.
    expect((await gw.query("ws://127.0.0.1:9/", [{ kinds: [1] }], () => undefined, 1_000)).complete).toBe(false);
  });

  it("a live subscription is active once every relay answered its REQ: what is published then arrives", async () => {
    const key = newKey();
    const seen: string[] = [];
    const sub = gw.subscribe([{ kinds: [1111], authors: [key.pubkey], limit: 0 }], (ev) => seen.push(ev.id));
    expect(await sub.active(5_000)).toBe(true);
    expect(await sub.active(5_000, b.url)).toBe(true);
    const ev = sign(key, 1111, "right after active");
    await publishRaw(b.url, ev);
    await until("the live event", () => seen.includes(ev.id));
    sub.close();
    expect(await sub.active(1_000)).toBe(false);
  });

  it("delivers live events with the url of the relay that sent them, once per relay", async () => {
    const key = newKey();
    const seen: { id: string; relay: string }[] = [];
    const sub = gw.subscribe([{ kinds: [1111], authors: [key.pubkey] }], (ev, relay) => seen.push({ id: ev.id, relay }));
    await sub.active(5_000);
    const before = gw.health().find((h) => h.url === b.url)!.eventsReceived;

    const toA = sign(key, 1111, "to a");
    const toB = sign(key, 1111, "to b");
    const toBoth = sign(key, 1111, "to both");
    await publishRaw(a.url, toA);
    await publishRaw(b.url, toB);
    await publishRaw(a.url, toBoth);
    await publishRaw(b.url, toBoth);
    await until("four deliveries", () => seen.length >= 4);

    expect(seen).toEqual(
      expect.arrayContaining([
        { id: toA.id, relay: a.url },
        { id: toB.id, relay: b.url },
        { id: toBoth.id, relay: a.url },
        { id: toBoth.id, relay: b.url },
      ]),
    );
    expect(seen).toHaveLength(4);
    const hb = gw.health().find((h) => h.url === b.url)!;
    expect(hb.eventsReceived).toBe(before + 2);
    expect(hb.lastEventAt).toBeGreaterThan(0);

    sub.close();
    sub.close(); // idempotent
    await publishRaw(a.url, sign(key, 1111, "after close"));
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(4);
  });

  it("takes live events off the socket itself: NDK builds no event object for them, and still answers the rest", async () => {
    const received = vi.spyOn(NDKSubscription.prototype, "eventReceived");
    try {
      const key = newKey();
      const seen: NostrEvent[] = [];
      const sub = gw.subscribe([{ kinds: [1111], authors: [key.pubkey], limit: 0 }], (ev) => seen.push(ev));
      expect(await sub.active(5_000)).toBe(true);
      const evs = [sign(key, 1111, "one"), sign(key, 1111, "two"), sign(newKey(), 1111, "a stranger's")];
      expect(await publishManyRaw(a.url, evs)).toHaveLength(3);
      await until("the two matching events", () => seen.length >= 2);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([wire(evs[0]!), wire(evs[1]!)]);
      expect(received).not.toHaveBeenCalled();
      sub.close();
    } finally {
      received.mockRestore();
    }
  });

  it("filters tags itself although the relay's live delivery ignores them", async () => {
    const key = newKey();
    const seen: string[] = [];
    const sub = gw.subscribe([{ kinds: [1111], authors: [key.pubkey], "#a": ["31933:owner:mine"] }], (ev) => seen.push(ev.id));
    // Once the REQ is active, both events come through live delivery.
    expect(await sub.active(5_000)).toBe(true);
    const mine = sign(key, 1111, "mine", [["a", "31933:owner:mine"]]);
    const other = sign(key, 1111, "other", [["a", "31933:owner:other"]]);
    await publishRaw(a.url, other);
    await publishRaw(a.url, mine);
    await until("the matching event", () => seen.includes(mine.id));
    sub.close();
    expect(seen).toEqual([mine.id]);
  });
});

describe("NdkGateway lifecycle and KeySigner input", () => {
  it("close() is idempotent and later calls fail with GatewayClosedError", async () => {
    const relay = await startTestRelay();
    const gw = await NdkGateway.connect({ relays: [relay.url] });
    await gw.close();
    await gw.close();
    await expect(gw.publish(sign(newKey(), 1, "late"))).rejects.toBeInstanceOf(GatewayClosedError);
    await expect(gw.fetch([{ kinds: [1] }])).rejects.toBeInstanceOf(GatewayClosedError);
    await expect(gw.query(relay.url, [{ kinds: [1] }], () => undefined, 1_000)).rejects.toBeInstanceOf(GatewayClosedError);
    expect(() => gw.subscribe([{ kinds: [1] }], () => undefined)).toThrow(GatewayClosedError);
    await relay.close();
    rmSync(dirname(relay.dbPath), { recursive: true, force: true });
  });

  it("a query to a relay that went down ends incomplete, with the reason, and the next one reconnects", async () => {
    const relay = await startTestRelay();
    const gw = await NdkGateway.connect({ relays: [relay.url], backoff: { initialMs: 50, maxMs: 200 } });
    const key = newKey();
    await publishManyRaw(relay.url, [sign(key, 1111, "kept")]);
    expect(await gw.query(relay.url, [{ authors: [key.pubkey] }], () => undefined, 5_000)).toEqual({ complete: true });
    await relay.close();
    const down = await gw.query(relay.url, [{ authors: [key.pubkey] }], () => undefined, 5_000);
    expect(down.complete).toBe(false);
    expect(down.reason).toBeTruthy();
    const again = await startTestRelay({ port: Number(new URL(relay.url).port), dbPath: relay.dbPath });
    const got: unknown[] = [];
    expect(await gw.query(relay.url, [{ authors: [key.pubkey] }], (ev) => got.push(ev), 5_000)).toEqual({ complete: true });
    expect(got).toHaveLength(1);
    await gw.close();
    await again.close();
    rmSync(dirname(relay.dbPath), { recursive: true, force: true });
  });

  it("KeySigner refuses a key that is not 32 bytes", () => {
    expect(() => new KeySigner(new Uint8Array(31))).toThrow(InvalidSecretKeyError);
  });
});
