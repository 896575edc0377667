// The daemon's announcements (24133, 513: daemon/engine/relays/signed-broadcast.ts): in order,
// the latest state per key when several wait (a catch-up of many new conversations must not
// queue a stale announcement each), and nothing reported once the gateway is closed (a daemon
// stopping while announcements wait). The gateway is the in-memory test double: what is tested
// is the order and what is sent, not a relay.

import { describe, expect, it, vi } from "vitest";
import { MemoryRelayGateway } from "../../adapters/memory/memory-relay-gateway.js";
import { MemorySigner } from "../../adapters/memory/memory-signer.js";
import { GatewayClosedError } from "../../adapters/nostr/errors.js";
import { SignedBroadcast } from "../../daemon/engine/relays/signed-broadcast.js";
import type { NostrEvent } from "../../src/types.js";

const note = (content: string) => ({ kind: 24133, created_at: 1, tags: [], content });

describe("signed broadcast", () => {
  it("sends in order; of several waiting with one key, only the latest", async () => {
    const gateway = new MemoryRelayGateway();
    const errors: unknown[] = [];
    const out = new SignedBroadcast(gateway, new MemorySigner(), (e) => errors.push(e));
    out.send("a", note("a1"));
    out.send("b", note("b1"));
    out.send("a", note("a2"));
    out.send("a", note("a3"));
    await out.idle();
    expect(gateway.published.map((e: NostrEvent) => e.content)).toEqual(["a3", "b1"]);
    out.send("a", note("a4"));
    await out.idle();
    expect(gateway.published.map((e: NostrEvent) => e.content)).toEqual(["a3", "b1", "a4"]);
    expect(errors).toEqual([]);
  });

  it("reports a refusal once its tries are spent, but not a gateway closed by a stop", async () => {
    const errors: unknown[] = [];
    let closed = false;
    const gateway = Object.assign(new MemoryRelayGateway(), {
      publish: async () => {
        if (closed) throw new GatewayClosedError();
        throw new Error("blocked: not admitted");
      },
    });
    const out = new SignedBroadcast(gateway, new MemorySigner(), (e) => errors.push(e), []);
    out.send("a", note("refused"));
    await out.idle();
    closed = true;
    out.send("b", note("after the stop"));
    await out.idle();
    expect(errors.map((e) => (e as Error).message)).toEqual(["blocked: not admitted"]);
  });

  it("tries again one that no relay took (a connection lost mid-AUTH), unless a newer one with its key came meanwhile", async () => {
    const errors: unknown[] = [];
    const published: string[] = [];
    let refuse = 1;
    const gateway = Object.assign(new MemoryRelayGateway(), {
      publish: async (ev: NostrEvent) => {
        if (refuse-- > 0) throw new Error("no relay accepted: Authentication failed: relay disconnected");
        published.push(ev.content);
        return [];
      },
    });
    const out = new SignedBroadcast(gateway, new MemorySigner(), (e) => errors.push(e), [20, 20]);
    out.send("a", note("working"));
    await out.idle();
    expect(published).toEqual([]);
    await vi.waitFor(() => expect(published).toEqual(["working"]));
    expect(errors).toEqual([]);

    // Refused, then overtaken: the retry of the older state is dropped.
    refuse = 1;
    out.send("a", note("stale"));
    await out.idle();
    out.send("a", note("stopped"));
    await out.idle();
    await new Promise((r) => setTimeout(r, 80));
    expect(published).toEqual(["working", "stopped"]);

    // Refused at every try: reported once, after the last.
    refuse = 3;
    out.send("b", note("never"));
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(published).toEqual(["working", "stopped"]);
  });
});
