// The gateway through relay crashes: a child relay SIGKILLed mid-subscription and restarted on
// the same port; a relay that is down when the gateway starts; one relay down out of two.

import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import { newKey, sign } from "../helpers/events.js";
import { publishRaw, spawnRelay, startTestRelay, type SpawnedRelay } from "../helpers/relay.js";

const FAST_BACKOFF = { initialMs: 50, maxMs: 400, stableMs: 5_000 };

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What `p` settled with (its value as JSON, or its error's message); fails if it has not settled within `ms`. */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`did not settle within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p.then((v) => JSON.stringify(v), (e: unknown) => `rejected: ${e instanceof Error ? e.message : String(e)}`), hung]);
  } finally {
    clearTimeout(timer);
  }
}

const cleanup = async (relay: SpawnedRelay) => {
  await relay.close();
  rmSync(dirname(relay.dbPath), { recursive: true, force: true });
};

describe("NdkGateway reconnection", () => {
  it("keeps a live subscription across a SIGKILL and restart of its relay", async () => {
    const relay = await spawnRelay();
    const gw = await NdkGateway.connect({ relays: [relay.url], backoff: FAST_BACKOFF });
    try {
      const key = newKey();
      const seen: { id: string; relay: string }[] = [];
      const reconnected: string[] = [];
      gw.onReconnect((url) => reconnected.push(url));
      gw.subscribe([{ kinds: [1111], authors: [key.pubkey] }], (ev, url) => seen.push({ id: ev.id, relay: url }));

      const before = sign(key, 1111, "before the crash");
      await publishRaw(relay.url, before);
      await until("the first event", () => seen.length === 1);

      await relay.kill("SIGKILL");
      await until("the gateway to notice", () => !gw.health()[0]!.connected);
      // Down long enough for a reconnection attempt to fail (after which NDK alone gives up).
      await until("a failed attempt", () => gw.health()[0]!.lastError === "connection attempt failed");
      await relay.restart();
      await until("the reconnect", () => reconnected.length === 1);

      const after = sign(key, 1111, "after the restart");
      await publishRaw(relay.url, after);
      await until("the event published after the restart", () => seen.some((s) => s.id === after.id));
      expect(seen.filter((s) => s.id === after.id)).toEqual([{ id: after.id, relay: relay.url }]);
      expect(reconnected).toEqual([relay.url]);

      const [h] = gw.health();
      expect(h!.connected).toBe(true);
      expect(h!.reconnects).toBeGreaterThanOrEqual(1);
      expect(h!.lastError).toBe("connection attempt failed");
      expect(h!.lastErrorAt).toBeGreaterThan(0);
    } finally {
      await gw.close();
      await cleanup(relay);
    }
  });

  it("connects to a relay that was down at start, then tells onReconnect", async () => {
    const relay = await spawnRelay();
    await relay.kill("SIGKILL");
    const gw = await NdkGateway.connect({ relays: [relay.url], connectTimeoutMs: 300, backoff: FAST_BACKOFF });
    try {
      expect(gw.health()[0]!.connected).toBe(false);
      const key = newKey();
      const seen: string[] = [];
      const reconnected: string[] = [];
      gw.onReconnect((url) => reconnected.push(url));
      gw.subscribe([{ authors: [key.pubkey] }], (ev) => seen.push(ev.id));

      await relay.restart();
      await until("the first connection", () => reconnected.length === 1);
      const ev = sign(key, 1, "first words");
      await publishRaw(relay.url, ev);
      await until("the event", () => seen.includes(ev.id));
      expect(gw.health()[0]).toMatchObject({ connected: true, reconnects: 0 });
    } finally {
      await gw.close();
      await cleanup(relay);
    }
  });

  it("publishes and fetches through the relay that is up while the other is down", async () => {
    const up = await startTestRelay();
    const down = await spawnRelay();
    await down.kill("SIGKILL");
    // A publish waits up to its timeout for a relay to (re)connect, so each one here takes the
    // whole timeout for the dead relay; the timeouts bound a hang, they measure nothing. Under
    // load the live relay's OK can come late (a 500 ms timeout failed this test): the publish is
    // tried again, as the daemon's outbox does, until the relay that is up has it.
    const PUBLISH_MS = 2_000;
    const FETCH_MS = 30_000;
    const gw = await NdkGateway.connect({
      relays: [up.url, down.url], connectTimeoutMs: 300, publishTimeoutMs: PUBLISH_MS, backoff: FAST_BACKOFF,
    });
    try {
      const ev = sign(newKey(), 1111, "one relay is enough");
      const tries: string[] = [];
      for (let i = 0; i < 6 && !tries.includes(JSON.stringify([up.url])); i++) {
        // Never hangs: each try settles, with the relays that took it or PublishRejectedError.
        const outcome = await settledWithin(gw.publish(ev), PUBLISH_MS + 30_000);
        tries.push(outcome);
      }
      expect(tries.at(-1), `the tries: ${tries.join("; ")}`).toBe(JSON.stringify([up.url]));
      // The dead relay never took it, and says why.
      expect(tries.filter((t) => t.startsWith("[") && t.includes(down.url))).toEqual([]);
      expect(gw.health().find((h) => h.url === down.url)!.lastError).toMatch(/not connected/);

      // A fetch asks the relays that are connected: it does not sit out its timeout for the dead one.
      const started = Date.now();
      const got = await gw.fetch([{ ids: [ev.id] }], FETCH_MS);
      expect(got.map((e) => e.id)).toEqual([ev.id]);
      expect(Date.now() - started, "the fetch waited out its timeout for the dead relay").toBeLessThan(FETCH_MS);
    } finally {
      await gw.close();
      await up.close();
      rmSync(dirname(up.dbPath), { recursive: true, force: true });
      await cleanup(down);
    }
  }, 120_000);
});
