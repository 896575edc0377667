// The embedded relay's protections (adapters/relay/, in this process), as an attacker and as the
// project's own clients meet them: who may connect, how large and how many frames, who may write,
// who may read and after what, and what a client that reads nothing may cost. Every refusal is
// answered the NIP-01 way and counted.

import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { finalizeEvent } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { RelayGuardOptions } from "../../adapters/relay/embedded-relay.js";
import { authEventTemplate } from "../../src/relay-guard/nip42.js";
import { transportLimits } from "../../src/relay-guard/transport-limits.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign, type TestKey } from "../helpers/events.js";
import { rawUpgrade, textFrame } from "../helpers/hostile-clients.js";
import { publishRaw, queryRaw, reqRaw, startTestRelay } from "../helpers/relay.js";

const MAX_EVENT_BYTES = 200_000;
const owner = newKey();
const daemonKey = newKey();
const stranger = newKey();

function guard(over: Partial<RelayGuardOptions> = {}): RelayGuardOptions {
  return {
    maxEventBytes: MAX_EVENT_BYTES,
    connections: { maxConnections: 6, maxConnectionsPerAddress: 3, newConnectionsPerSecond: 1_000 },
    client: { messagesPerSecond: 20, bytesPerSecond: 1_000_000, maxSubscriptions: 2, maxBufferedBytes: 64 * 1024 },
    allowedOrigins: ["http://localhost:5173"],
    access: { auth: "reads", members: new Set([owner.pubkey, daemonKey.pubkey]) },
    trusted: new Set([daemonKey.pubkey]),
    ...over,
  };
}

type Relay = Awaited<ReturnType<typeof startTestRelay>>;
let relay: Relay;
beforeAll(async () => {
  relay = await startTestRelay({ guard: guard() });
});
afterAll(async () => {
  await relay.close();
  rmSync(dirname(relay.dbPath), { recursive: true, force: true });
});

/** A client that answers AUTH as `key` (when given), sends frames and collects what comes back. */
class Client {
  readonly got: unknown[][] = [];
  closed = false;
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (d) => this.got.push(JSON.parse(String(d)) as unknown[]));
    ws.on("close", () => (this.closed = true));
    ws.on("error", () => undefined);
  }

  static async open(url: string, key?: TestKey, localAddress?: string): Promise<Client> {
    const ws = new WebSocket(url, { ...(localAddress ? { localAddress } : {}), maxPayload: 64 * 1024 * 1024 });
    const c = new Client(ws);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    if (key) {
      const challenge = String((await c.next((m) => m[0] === "AUTH"))[1]);
      const ev = finalizeEvent(authEventTemplate(challenge, url, Math.floor(Date.now() / 1000)), key.sk);
      c.send(["AUTH", ev]);
      expect(await c.next((m) => m[0] === "OK" && m[1] === ev.id)).toEqual(["OK", ev.id, true, ""]);
    }
    return c;
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }

  /** The first frame (received so far or later) that matches. */
  async next(match: (m: unknown[]) => boolean, timeoutMs = 5_000): Promise<unknown[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = this.got.find(match);
      if (m) return m;
      if (Date.now() > until) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.got).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async whenClosed(timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > until) throw new Error("the relay did not close the connection");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): void {
    this.ws.terminate();
  }
}

const ownerRoot = (content = "hello") => sign(owner, 11, content, [["title", "t"]]);
let made = 0;
/** A new owner's event whose JSON takes `bytes`. */
function ownerEventOf(bytes: number): NostrEvent {
  const probe = sign(owner, 1, String(++made));
  return sign(owner, 1, `${made}`.padEnd(bytes - Buffer.byteLength(JSON.stringify(probe)) + String(made).length, "x"), [], probe.created_at);
}

describe("who may connect", () => {
  it("refuses a web page unless its origin is listed, and counts it", async () => {
    const before = relay.stats().refused.origin_refused;
    const evil = await rawUpgrade(relay.url, { Origin: "http://evil.example" });
    evil.socket.destroy();
    expect(evil.status).toBe(403);
    const listed = await rawUpgrade(relay.url, { Origin: "http://localhost:5173" });
    listed.socket.destroy();
    expect(listed.status).toBe(101);
    expect(relay.stats().refused.origin_refused).toBe(before + 1);
  });

  it("refuses connections over the per-address and total limits, and takes them again once some close", async () => {
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await rawUpgrade(relay.url, {}, "127.0.0.2"));
    expect(held.map((u) => u.status)).toEqual([101, 101, 101]);
    const fourth = await rawUpgrade(relay.url, {}, "127.0.0.2");
    fourth.socket.destroy();
    expect(fourth.status).toBe(503);
    for (let i = 0; i < 3; i++) held.push(await rawUpgrade(relay.url, {}, "127.0.0.3"));
    const seventh = await rawUpgrade(relay.url, {}, "127.0.0.4");
    seventh.socket.destroy();
    expect(seventh.status).toBe(503);
    const r = relay.stats().refused;
    expect([r.too_many_from_address, r.too_many_connections]).toEqual([1, 1]);
    for (const u of held) u.socket.destroy();
    await new Promise((res) => setTimeout(res, 100));
    const again = await rawUpgrade(relay.url, {}, "127.0.0.2");
    again.socket.destroy();
    expect(again.status).toBe(101);
  });

  it("refuses new connections over the per-second rate", async () => {
    const r = await startTestRelay({ guard: guard({ connections: { maxConnections: 50, maxConnectionsPerAddress: 50, newConnectionsPerSecond: 2 } }) });
    try {
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        const u = await rawUpgrade(r.url);
        u.socket.destroy();
        statuses.push(u.status);
      }
      // The bucket holds two seconds of the rate: 4 at once, then refused.
      expect(statuses.slice(0, 4)).toEqual([101, 101, 101, 101]);
      expect(statuses.slice(4)).toEqual([503, 503]);
      expect(r.stats().refused.connection_rate).toBe(2);
    } finally {
      await r.close();
    }
  });
});

describe("frames and messages", () => {
  const limits = transportLimits(MAX_EVENT_BYTES);

  it("cuts a frame whose header claims more than the largest frame, without reading it", async () => {
    const before = relay.stats().refused.frame_too_large;
    const up = await rawUpgrade(relay.url);
    const closed = new Promise<void>((r) => up.socket.once("close", () => r()));
    up.socket.on("error", () => undefined);
    up.socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | 127]), Buffer.from([0, 0, 0, 0, 0x05, 0xa9, 0x95, 0x80]), Buffer.alloc(4)]));
    await closed;
    expect(relay.stats().refused.frame_too_large).toBe(before + 1);
  });

  it("reads frames over 64 KiB only from a client that authenticated as one of the project's people", async () => {
    const big = ownerEventOf(limits.maxUnauthenticatedFrameBytes + 1_000);
    const anonymous = await Client.open(relay.url);
    anonymous.send(["EVENT", big]);
    expect(await anonymous.next((m) => m[0] === "NOTICE")).toEqual(["NOTICE", expect.stringMatching(/^auth-required: frames over 65536 bytes need AUTH/)]);
    await anonymous.whenClosed();
    const authed = await Client.open(relay.url, owner);
    authed.send(["EVENT", big]);
    expect(await authed.next((m) => m[0] === "OK" && m[1] === big.id)).toEqual(["OK", big.id, true, ""]);
    authed.close();
  });

  it("refuses an event over the event limit, and a request frame over the request limit, and goes on", async () => {
    const c = await Client.open(relay.url, owner);
    const tooBig = ownerEventOf(MAX_EVENT_BYTES + 1);
    c.send(["EVENT", tooBig]);
    expect(await c.next((m) => m[0] === "OK" && m[1] === tooBig.id)).toEqual(["OK", tooBig.id, false, `invalid: the event is ${MAX_EVENT_BYTES + 1} bytes, limit ${MAX_EVENT_BYTES}`]);
    c.send(["REQ", "huge", { ids: Array.from({ length: 2_500 }, (_, i) => i.toString(16).padStart(64, "0")) }]);
    expect(await c.next((m) => m[0] === "CLOSED" && m[1] === "huge")).toEqual(["CLOSED", "huge", expect.stringMatching(/^invalid: a REQ frame of \d+ bytes, limit 131072/)]);
    const ok = ownerRoot("still served");
    c.send(["EVENT", ok]);
    expect(await c.next((m) => m[0] === "OK" && m[1] === ok.id)).toEqual(["OK", ok.id, true, ""]);
    c.close();
    expect(relay.stats().refused.event_too_large).toBeGreaterThanOrEqual(1);
    expect(relay.stats().refused.request_too_large).toBeGreaterThanOrEqual(1);
  });

  it("says why and disconnects a client over its message rate", async () => {
    const c = await Client.open(relay.url);
    // A bucket of 10 s at 20 messages/s: 200 at once, the next one is over.
    for (let i = 0; i < 205; i++) c.send(["CLOSE", `s${i}`]);
    expect(await c.next((m) => m[0] === "NOTICE")).toEqual(["NOTICE", "rate-limited: over 20 messages/s; disconnecting"]);
    await c.whenClosed();
    expect(relay.stats().refused.rate_limited).toBeGreaterThanOrEqual(1);
  });

  it("holds everyone but the daemon together to the inbound budget: over it, clients wait instead of being read", async () => {
    const r = await startTestRelay({ guard: guard({ inboundBytesPerSecond: 250_000 }) });
    try {
      const c = await Client.open(r.url, owner);
      const events = Array.from({ length: 60 }, () => ownerEventOf(50_000));
      const started = Date.now();
      for (const ev of events) c.send(["EVENT", ev]);
      for (const ev of events) await c.next((m) => m[0] === "OK" && m[1] === ev.id, 60_000);
      // 3 MB at 250 KB/s: the bucket holds 408 KB (two of the largest frames) and what a socket
      // has read ahead when it is paused is handled too (libuv reads up to 2 MB a turn): 2 s at
      // least, ~8-10 s as seen here.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(c.closed).toBe(false);
      c.close();
    } finally {
      await r.close();
    }
  }, 90_000);
});

describe("who may write and read", () => {
  it("takes events only from the project's people", async () => {
    const mine = ownerRoot("from the owner, without AUTH");
    expect(await publishRaw(relay.url, mine)).toEqual({ accepted: true, message: "" });
    const theirs = sign(stranger, 11, "from a stranger");
    expect(await publishRaw(relay.url, theirs)).toEqual({ accepted: false, message: "restricted: this relay takes events only from the project's people" });
    expect(await queryRaw(relay.url, { ids: [mine.id, theirs.id] }, { auth: owner.sk })).toEqual([JSON.parse(JSON.stringify(mine))]);
  });

  it("serves REQ and COUNT only after AUTH by one of the project's people", async () => {
    const ev = ownerRoot("only for us");
    await publishRaw(relay.url, ev);
    const anonymous = await reqRaw(relay.url, { ids: [ev.id] });
    expect(anonymous).toEqual({ events: [], closed: expect.stringMatching(/^auth-required: /) });
    await expect(reqRaw(relay.url, { ids: [ev.id] }, { auth: stranger.sk })).rejects.toThrow(/relay refused our AUTH: restricted: this key is not one of the project's people/);
    expect((await queryRaw(relay.url, { ids: [ev.id] }, { auth: owner.sk })).map((e) => e.id)).toEqual([ev.id]);

    const c = await Client.open(relay.url);
    c.send(["COUNT", "n", { kinds: [11] }]);
    expect(await c.next((m) => m[0] === "CLOSED")).toEqual(["CLOSED", "n", expect.stringMatching(/^auth-required: /)]);
    c.close();
  });

  it("refuses an AUTH that answers another challenge, names another relay, or is not signed by its key", async () => {
    const c = await Client.open(relay.url);
    const challenge = String((await c.next((m) => m[0] === "AUTH"))[1]);
    const tries = [
      finalizeEvent(authEventTemplate("not-the-challenge", relay.url, Math.floor(Date.now() / 1000)), owner.sk),
      finalizeEvent(authEventTemplate(challenge, "ws://127.0.0.1:1", Math.floor(Date.now() / 1000)), owner.sk),
      { ...finalizeEvent(authEventTemplate(challenge, relay.url, Math.floor(Date.now() / 1000)), stranger.sk), pubkey: owner.pubkey },
    ];
    for (const ev of tries) c.send(["AUTH", ev]);
    for (const ev of tries) expect(await c.next((m) => m[0] === "OK" && m[1] === ev.id)).toEqual(["OK", ev.id, false, expect.stringMatching(/^invalid: /)]);
    c.send(["REQ", "r", {}]);
    expect(await c.next((m) => m[0] === "CLOSED")).toEqual(["CLOSED", "r", expect.stringMatching(/^auth-required: /)]);
    c.close();
  });

  it("asks for AUTH before EVENT too when `auth` is `all`", async () => {
    const r = await startTestRelay({ guard: guard({ access: { auth: "all", members: new Set([owner.pubkey]) } }) });
    try {
      const ev = ownerRoot("needs auth");
      expect(await publishRaw(r.url, ev)).toEqual({ accepted: false, message: expect.stringMatching(/^auth-required: /) });
      const c = await Client.open(r.url, owner);
      c.send(["EVENT", ev]);
      expect(await c.next((m) => m[0] === "OK" && m[1] === ev.id)).toEqual(["OK", ev.id, true, ""]);
      c.close();
    } finally {
      await r.close();
    }
  });
});

describe("what a reader may cost", () => {
  it("refuses a subscription past the limit, and a REQ with too many filters", async () => {
    const c = await Client.open(relay.url, owner);
    c.send(["REQ", "a", { kinds: [11], limit: 0 }]);
    c.send(["REQ", "b", { kinds: [11], limit: 0 }]);
    await c.next((m) => m[0] === "EOSE" && m[1] === "b");
    c.send(["REQ", "c", { kinds: [11], limit: 0 }]);
    expect(await c.next((m) => m[1] === "c")).toEqual(["CLOSED", "c", expect.stringMatching(/^rate-limited: 2 subscriptions open, limit 2/)]);
    // The same id replaces a subscription: fine.
    c.send(["REQ", "a", { kinds: [1], limit: 0 }]);
    await c.next((m) => m[0] === "EOSE" && m[1] === "a");
    c.send(["CLOSE", "b"]);
    c.send(["REQ", "d", ...Array.from({ length: 33 }, () => ({ kinds: [11], limit: 0 }))]);
    expect(await c.next((m) => m[1] === "d")).toEqual(["CLOSED", "d", "invalid: 33 filters in one REQ, limit 32"]);
    c.close();
  });

  it("cuts a reader that lets more than its limit wait unsent, and not the daemon's own connection", async () => {
    const r = await startTestRelay({ guard: guard({ client: { messagesPerSecond: 1_000, bytesPerSecond: 100_000_000, maxSubscriptions: 8, maxBufferedBytes: 64 * 1024 } }) });
    try {
      // ~6 MB stored: more than the kernel's socket buffers take for a reader that reads nothing
      // (the sender's grow to 4 MB here, the receiver's stay small).
      const publisher = await Client.open(r.url, owner);
      const events = Array.from({ length: 150 }, () => ownerEventOf(40_000));
      for (const ev of events) publisher.send(["EVENT", ev]);
      await publisher.next((m) => m[0] === "OK" && m[1] === events[events.length - 1]!.id, 60_000);
      publisher.close();

      const read = async (key: TestKey) => {
        const c = await Client.open(r.url, key);
        c.ws.pause(); // reads nothing for a while
        c.send(["REQ", "all", { authors: [owner.pubkey], limit: 1000 }]);
        await new Promise((res) => setTimeout(res, 2_000));
        return c;
      };
      const slow = await read(owner);
      expect(r.stats().refused.slow_reader, "the slow reader was cut").toBe(1);
      // Reading again, it gets what the kernel held, then the end of the connection: no EOSE.
      slow.ws.resume();
      await slow.whenClosed();
      expect(slow.got.some((m) => m[0] === "EOSE")).toBe(false);
      expect(slow.got.filter((m) => m[0] === "EVENT").length).toBeLessThan(events.length);

      const daemon = await read(daemonKey);
      expect(r.stats().refused.slow_reader, "the daemon's own connection was cut").toBe(1);
      daemon.ws.resume();
      await daemon.next((m) => m[0] === "EOSE", 30_000);
      expect(daemon.got.filter((m) => m[0] === "EVENT").length).toBe(events.length);
      expect(daemon.closed).toBe(false);
      daemon.close();
    } finally {
      await r.close();
    }
  }, 120_000);
});

describe("an open relay (relay-main's default, tests' \"network\")", () => {
  it("takes and serves anyone, as before", async () => {
    const r = await startTestRelay();
    try {
      const ev = sign(stranger, 11, "anyone");
      expect((await publishRaw(r.url, ev)).accepted).toBe(true);
      expect((await queryRaw(r.url, { ids: [ev.id] })).map((e) => e.id)).toEqual([ev.id]);
      const page = await rawUpgrade(r.url, { Origin: "http://evil.example" });
      page.socket.destroy();
      expect(page.status).toBe(101);
      expect(textFrame("x").length).toBe(7);
    } finally {
      await r.close();
    }
  });
});
