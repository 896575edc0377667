// The daemon's own relay clients (NdkGateway: NDK for live and publish, QueryConnection for
// back-fill) against relays that demand NIP-42 AUTH, and against a relay that sends frames larger
// than the daemon takes. Without answering AUTH the daemon reads nothing from its own embedded
// relay; without a frame limit a relay could make it buffer 100 MB frames.

import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { dirname } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { NdkGateway } from "../../adapters/nostr/ndk-gateway.js";
import type { RelayGuardOptions } from "../../adapters/relay/embedded-relay.js";
import type { RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign } from "../helpers/events.js";
import { publishRaw, startTestRelay } from "../helpers/relay.js";

const owner = newKey();
const daemonKey = newKey();
const stranger = newKey();
const guard = (auth: "reads" | "all"): RelayGuardOptions => ({ maxEventBytes: 131_072, access: { auth, members: new Set([owner.pubkey, daemonKey.pubkey]) } });

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const gateways: NdkGateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
});
const connect = async (url: string, authKey?: Uint8Array) => {
  const g = await NdkGateway.connect({ relays: [url], connectTimeoutMs: 5_000, publishTimeoutMs: 5_000, ...(authKey ? { authKey } : {}) });
  gateways.push(g);
  return g;
};
const queryAll = async (g: NdkGateway, url: string, filter: RelayFilter) => {
  const got: NostrEvent[] = [];
  const end = await g.query(url, [filter], (ev) => got.push(ev as NostrEvent), 10_000);
  return { got, end };
};

describe("a relay that asks for AUTH before reads", () => {
  let relay: Awaited<ReturnType<typeof startTestRelay>>;
  beforeAll(async () => {
    relay = await startTestRelay({ guard: guard("reads") });
  });
  afterAll(async () => {
    await relay.close();
    rmSync(dirname(relay.dbPath), { recursive: true, force: true });
  });

  it("is answered on every connection: live events, back-fill queries and publishing work, and the status says so", async () => {
    const stored = sign(owner, 11, "stored before we came");
    await publishRaw(relay.url, stored);
    const g = await connect(relay.url, daemonKey.sk);
    const live: NostrEvent[] = [];
    const sub = g.subscribe([{ kinds: [11], limit: 0 }], (ev) => live.push(ev));
    expect(await sub.active(10_000)).toBe(true);

    // The query connection's first REQ is refused (auth-required) and sent again once the relay took our AUTH.
    const { got, end } = await queryAll(g, relay.url, { ids: [stored.id] });
    expect(end).toEqual({ complete: true });
    expect(got.map((e) => e.id)).toEqual([stored.id]);

    const later = sign(owner, 11, "live");
    await publishRaw(relay.url, later);
    await until("the live event", () => (live.some((e) => e.id === later.id) ? true : undefined));

    expect(await g.publish(sign(daemonKey, 11, "from the daemon"))).toEqual([relay.url]);
    const [health] = g.health();
    expect(health!.auth).toEqual({ asked: true, accepted: true });
    // The live REQ sent before the AUTH was answered and refused is not an error: it was sent again.
    expect(health!.lastError ?? "").not.toMatch(/auth-required/);
  });

  it("shows a refused AUTH per relay, and a query it could not make is incomplete, saying why", async () => {
    const g = await connect(relay.url, stranger.sk);
    const { got, end } = await queryAll(g, relay.url, { kinds: [11] });
    expect(got).toEqual([]);
    expect(end.complete).toBe(false);
    expect(end.reason).toMatch(/auth-required: .*our AUTH: restricted: this key is not one of the project's people/);
    const health = await until("the AUTH outcome", () => (g.health()[0]!.auth.accepted === false ? g.health()[0]! : undefined));
    expect(health.auth).toEqual({ asked: true, accepted: false, refusal: expect.stringMatching(/restricted: this key is not one of the project's people/) });
  });

  it("without a key: asked, not answered, and nothing read", async () => {
    const g = await connect(relay.url);
    const { got, end } = await queryAll(g, relay.url, { kinds: [11] });
    expect([got, end.complete]).toEqual([[], false]);
    expect(end.reason).toMatch(/auth-required/);
    expect(await until("the challenge", () => (g.health()[0]!.auth.asked ? g.health()[0]! : undefined))).toMatchObject({ auth: { asked: true, accepted: null } });
  });
});

describe("a relay that asks for AUTH before EVENT too", () => {
  it("takes the daemon's publish, sent again by NDK once authenticated", async () => {
    const relay = await startTestRelay({ guard: guard("all") });
    try {
      const g = await connect(relay.url, daemonKey.sk);
      const ev = sign(daemonKey, 11, "published at once");
      expect(await g.publish(ev)).toEqual([relay.url]);
      expect(g.health()[0]!.auth).toEqual({ asked: true, accepted: true });
    } finally {
      await relay.close();
      rmSync(dirname(relay.dbPath), { recursive: true, force: true });
    }
  });
});

describe("a relay that sends frames larger than the daemon takes", () => {
  /**
   * A WebSocket relay that answers every REQ with the header of a 95 MB frame and then streams
   * its bytes for as long as the client reads them; `written` counts what got through.
   */
  async function hostileRelay() {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    let written = 0;
    const sockets = new Set<Socket>();
    server.on("upgrade", (req, socket, head) => {
      wss.handleUpgrade(req, socket as Socket, head, (ws) => {
        const raw = (ws as unknown as { _socket: Socket })._socket;
        sockets.add(raw);
        ws.on("message", async (data) => {
          if (!String(data).startsWith('["REQ"')) return;
          const header = Buffer.alloc(10);
          header[0] = 0x81;
          header[1] = 127;
          header.writeBigUInt64BE(95_000_000n, 2);
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          raw.write(header);
          while (!raw.destroyed && written < 95_000_000) {
            if (!raw.write(chunk)) await new Promise((r) => { raw.once("drain", r); raw.once("close", r); });
            written += chunk.length;
          }
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return {
      url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
      written: () => written,
      close: () => {
        for (const s of sockets) s.destroy();
        server.close();
      },
    };
  }

  it("drops the back-fill connection at the frame's header: the query ends incomplete, having read ~nothing", async () => {
    const relay = await hostileRelay();
    try {
      const g = await connect(relay.url);
      const { end } = await queryAll(g, relay.url, { kinds: [11] });
      expect(end.complete).toBe(false);
      expect(end.reason).toMatch(/the relay sent a frame over 1048576 bytes/);
      // The kernel's buffers, not 95 MB.
      expect(relay.written()).toBeLessThan(16 * 1024 * 1024);
    } finally {
      relay.close();
    }
  });

  it("drops the live connection the same way", async () => {
    const relay = await hostileRelay();
    try {
      const g = await connect(relay.url);
      g.subscribe([{ kinds: [11], limit: 0 }], () => undefined);
      await until("the live connection to drop", () => (g.health()[0]!.connected === false ? true : undefined));
      expect(relay.written()).toBeLessThan(16 * 1024 * 1024);
    } finally {
      relay.close();
    }
  });
});
