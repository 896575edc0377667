// The embedded relay's rules (src/relay-guard/): limits derived from the event size, token
// buckets, who may connect, write, read and authenticate, and what a NIP-42 AUTH event must say.

import { describe, expect, it } from "vitest";
import { mayAuthenticate, mayRead, mayWrite, type AccessPolicy } from "../../src/relay-guard/access.js";
import { DEFAULT_CONNECTION_LIMITS, newConnectionRate, normaliseOrigin, refuseUpgrade } from "../../src/relay-guard/admission.js";
import {
  bufferLimit, chargeFrame, DEFAULT_CLIENT_LIMITS, inboundRate, MAX_FILTERS_PER_REQUEST, ratesFor, refuseRequest, STRANGER_BUFFERED_BYTES,
  tierAfterAuth, tierBeforeAuth,
} from "../../src/relay-guard/client-limits.js";
import { AUTH_KIND, AUTH_WINDOW_SECS, authEventProblem, authEventTemplate } from "../../src/relay-guard/nip42.js";
import { fullBucket, take, takeOnCredit } from "../../src/relay-guard/token-bucket.js";
import { oversizedEvent, oversizedRequest, refuseUnread, transportLimits } from "../../src/relay-guard/transport-limits.js";

const OWNER = "a".repeat(64);
const STRANGER = "b".repeat(64);

describe("transport limits", () => {
  it("derive the frame limits from the event limit", () => {
    const l = transportLimits(131_072);
    expect(l.maxFrameBytes).toBe(131_072 + 4096);
    expect(l.maxUnauthenticatedFrameBytes).toBe(65_536);
    expect(l.maxRequestFrameBytes).toBe(131_072);
    // The daemon's own sockets allow any escaping of the largest event (6 bytes a character), and 1 MiB at least.
    expect(l.clientMaxFrameBytes).toBe(1024 * 1024);
    expect(transportLimits(262_144).clientMaxFrameBytes).toBe(6 * 262_144 + 65_536);
    // A small event limit still leaves room for a REQ, and the daemon's sockets at least 1 MiB.
    const small = transportLimits(8_192);
    expect(small.maxFrameBytes).toBe(131_072);
    expect(small.maxUnauthenticatedFrameBytes).toBe(65_536);
    expect(small.clientMaxFrameBytes).toBe(1024 * 1024);
    expect(transportLimits(1_000).maxUnauthenticatedFrameBytes).toBeLessThanOrEqual(transportLimits(1_000).maxFrameBytes);
  });

  it("refuse a frame over 64 KiB unread from a client that has not authenticated", () => {
    expect(refuseUnread("stranger", 65_537, 65_536)).toMatch(/^auth-required: frames over 65536 bytes need AUTH/);
    expect(refuseUnread("stranger", 65_536, 65_536)).toBeUndefined();
    expect(refuseUnread("member", 1_000_000, 65_536)).toBeUndefined();
    expect(refuseUnread("trusted", 1_000_000, 65_536)).toBeUndefined();
  });

  it("refuse to store an event over the event limit", () => {
    expect(oversizedEvent(131_073, 131_072)).toBe("invalid: the event is 131073 bytes, limit 131072");
    expect(oversizedEvent(131_072, 131_072)).toBeUndefined();
  });

  it("let only EVENT frames be larger than a request", () => {
    const l = transportLimits(131_072);
    expect(oversizedRequest("EVENT", 135_000, l)).toBeUndefined();
    expect(oversizedRequest("REQ", 131_072, l)).toBeUndefined();
    expect(oversizedRequest("REQ", 131_073, l)).toMatch(/^invalid: a REQ frame of 131073 bytes, limit 131072/);
    expect(oversizedRequest("AUTH", 200_000, l)).toMatch(/^invalid:/);
  });
});

describe("token buckets", () => {
  const rate = { capacity: 10, perSecond: 5 };

  it("spend up to their capacity at once, then refill at their rate; a refused take spends nothing", () => {
    let b = fullBucket(rate, 0);
    const first = take(b, rate, 10, 0);
    expect(first.ok).toBe(true);
    b = first.bucket;
    const refused = take(b, rate, 1, 100);
    expect(refused.ok).toBe(false);
    expect(refused.bucket.tokens).toBeCloseTo(0.5);
    const later = take(refused.bucket, rate, 3, 700);
    expect(later.ok).toBe(true);
    expect(later.bucket.tokens).toBeCloseTo(0.5);
    // Never more than the capacity, however long it waited.
    expect(take(later.bucket, rate, 11, 1_000_000).ok).toBe(false);
  });

  it("on credit: always take, and say how long to wait until the debt is paid", () => {
    let b = fullBucket(rate, 0);
    const r1 = takeOnCredit(b, rate, 10, 0);
    expect(r1.waitMs).toBe(0);
    const r2 = takeOnCredit(r1.bucket, rate, 10, 0);
    expect(r2.bucket.tokens).toBe(-10);
    expect(r2.waitMs).toBe(2000);
    b = takeOnCredit(r2.bucket, rate, 0, 1000).bucket;
    expect(b.tokens).toBe(-5);
  });
});

describe("client limits", () => {
  it("hold ten seconds of their rate, and the byte bucket at least two of the largest frames", () => {
    const r = ratesFor({ ...DEFAULT_CLIENT_LIMITS, bytesPerSecond: 1000 }, 135_168);
    expect(r.messages).toEqual({ capacity: 1000, perSecond: 100 });
    expect(r.bytes).toEqual({ capacity: 2 * 135_168, perSecond: 1000 });
    expect(inboundRate(4_194_304, 135_168)).toEqual({ capacity: 4_194_304, perSecond: 4_194_304 });
  });

  it("refuse a frame over either bucket, naming the rate", () => {
    const rates = { messages: { capacity: 2, perSecond: 1 }, bytes: { capacity: 100, perSecond: 10 } };
    let spend = { messages: fullBucket(rates.messages, 0), bytes: fullBucket(rates.bytes, 0) };
    const a = chargeFrame(spend, rates, 60, 0);
    expect(a.ok).toBe(true);
    spend = a.spend;
    const bytes = chargeFrame(spend, rates, 60, 0);
    expect(bytes).toMatchObject({ ok: false, message: "rate-limited: over 10 bytes/s; disconnecting" });
    const b = chargeFrame(bytes.spend, rates, 10, 0);
    expect(b.ok).toBe(true);
    expect(chargeFrame(b.spend, rates, 1, 0)).toMatchObject({ ok: false, message: "rate-limited: over 1 messages/s; disconnecting" });
  });

  it("make a connection a stranger until it authenticates where AUTH is asked; the daemon's key is trusted", () => {
    expect([tierBeforeAuth(true), tierBeforeAuth(false)]).toEqual(["stranger", "member"]);
    expect(tierAfterAuth(OWNER, new Set([STRANGER]))).toBe("member");
    expect(tierAfterAuth(OWNER, new Set([OWNER]))).toBe("trusted");
    expect(tierAfterAuth(OWNER, undefined)).toBe("member");
  });

  it("bound what waits to be sent by who is reading", () => {
    expect(bufferLimit("trusted", DEFAULT_CLIENT_LIMITS)).toBe(Number.POSITIVE_INFINITY);
    expect(bufferLimit("member", DEFAULT_CLIENT_LIMITS)).toBe(16 * 1024 * 1024);
    expect(bufferLimit("stranger", DEFAULT_CLIENT_LIMITS)).toBe(STRANGER_BUFFERED_BYTES);
  });

  it("refuse a REQ with too many filters, or a new subscription past the limit (a reused id is fine)", () => {
    const limits = { ...DEFAULT_CLIENT_LIMITS, maxSubscriptions: 2 };
    expect(refuseRequest(MAX_FILTERS_PER_REQUEST + 1, 0, false, limits)?.reason).toBe("too_many_filters");
    expect(refuseRequest(3, 1, false, limits)).toBeUndefined();
    expect(refuseRequest(3, 2, false, limits)).toMatchObject({ reason: "too_many_subscriptions", message: expect.stringMatching(/^rate-limited: 2 subscriptions open, limit 2/) });
    expect(refuseRequest(3, 2, true, limits)).toBeUndefined();
  });
});

describe("admission", () => {
  const limits = { maxConnections: 3, maxConnectionsPerAddress: 2, newConnectionsPerSecond: 5 };
  const open = { total: 0, fromAddress: 0 };

  it("refuses a web page unless its origin is listed (as browsers write it); no Origin is not a browser", () => {
    expect(refuseUpgrade({ origin: "http://evil.example", address: "127.0.0.1" }, open, true, limits, [])).toMatchObject({ status: 403, reason: "origin_refused" });
    expect(refuseUpgrade({ origin: "null", address: "127.0.0.1" }, open, true, limits, [])?.status).toBe(403);
    expect(refuseUpgrade({ origin: "HTTPS://Tenex.Chat", address: "127.0.0.1" }, open, true, limits, ["https://tenex.chat/"])).toBeUndefined();
    expect(refuseUpgrade({ origin: undefined, address: "127.0.0.1" }, open, true, limits, [])).toBeUndefined();
    expect(normaliseOrigin(" http://localhost:5173/ ")).toBe("http://localhost:5173");
  });

  it("refuses past the total, per-address and per-second limits", () => {
    const req = { origin: undefined, address: "127.0.0.2" };
    expect(refuseUpgrade(req, { total: 3, fromAddress: 0 }, true, limits, [])).toMatchObject({ status: 503, reason: "too_many_connections" });
    expect(refuseUpgrade(req, { total: 2, fromAddress: 2 }, true, limits, [])).toMatchObject({ status: 503, reason: "too_many_from_address", message: expect.stringContaining("127.0.0.2") });
    expect(refuseUpgrade(req, open, false, limits, [])).toMatchObject({ status: 503, reason: "connection_rate" });
    expect(newConnectionRate(DEFAULT_CONNECTION_LIMITS)).toEqual({ capacity: 100, perSecond: 50 });
  });
});

describe("access", () => {
  const reads: AccessPolicy = { auth: "reads", members: new Set([OWNER]) };
  const all: AccessPolicy = { auth: "all", members: new Set([OWNER]) };
  const off: AccessPolicy = { auth: "off", members: new Set([OWNER]) };

  it("takes events only from the project's people, with AUTH first where the relay asks for it on writes too", () => {
    expect(mayWrite(reads, OWNER, undefined)).toEqual({ ok: true });
    expect(mayWrite(reads, STRANGER, OWNER)).toMatchObject({ ok: false, reason: "write_restricted", message: expect.stringMatching(/^restricted:/) });
    expect(mayWrite(all, OWNER, undefined)).toMatchObject({ ok: false, reason: "auth_required", message: expect.stringMatching(/^auth-required:/) });
    expect(mayWrite(all, OWNER, OWNER)).toEqual({ ok: true });
    expect(mayWrite(off, STRANGER, undefined).ok).toBe(false);
    expect(mayWrite({ auth: "off" }, STRANGER, undefined)).toEqual({ ok: true });
  });

  it("serves reads only after AUTH by one of the project's people, unless AUTH is off", () => {
    expect(mayRead(reads, undefined)).toMatchObject({ ok: false, reason: "auth_required", message: expect.stringMatching(/^auth-required:/) });
    expect(mayRead(reads, STRANGER).ok).toBe(false);
    expect(mayRead(reads, OWNER)).toEqual({ ok: true });
    expect(mayRead(off, undefined)).toEqual({ ok: true });
  });

  it("takes an AUTH only from one of the project's people", () => {
    expect(mayAuthenticate(reads, OWNER)).toEqual({ ok: true });
    expect(mayAuthenticate(reads, STRANGER)).toMatchObject({ ok: false, reason: "auth_refused", message: expect.stringMatching(/^restricted:/) });
    expect(mayAuthenticate({ auth: "reads" }, STRANGER)).toEqual({ ok: true });
  });
});

describe("NIP-42 AUTH events", () => {
  const now = 1_800_000_000;
  const ok = authEventTemplate("challenge-1", "ws://127.0.0.1:7777", now);

  it("are kind 22242 with the relay and the challenge", () => {
    expect(ok).toEqual({ kind: AUTH_KIND, created_at: now, content: "", tags: [["relay", "ws://127.0.0.1:7777"], ["challenge", "challenge-1"]] });
    expect(authEventProblem(ok, "challenge-1", "127.0.0.1", 7777, now)).toBeUndefined();
  });

  it("name this relay by any loopback name, on its port", () => {
    for (const relay of ["ws://localhost:7777/", "ws://[::1]:7777", "ws://127.0.0.1:7777/"]) {
      expect(authEventProblem({ ...ok, tags: [["relay", relay], ["challenge", "challenge-1"]] }, "challenge-1", "127.0.0.1", 7777, now)).toBeUndefined();
    }
    for (const relay of ["ws://127.0.0.1:7778", "ws://evil.example:7777", "http://127.0.0.1:7777", "not a url"]) {
      expect(authEventProblem({ ...ok, tags: [["relay", relay], ["challenge", "challenge-1"]] }, "challenge-1", "127.0.0.1", 7777, now)).toMatch(/relay tag/);
    }
  });

  it("are refused with the wrong kind, challenge or time", () => {
    expect(authEventProblem({ ...ok, kind: 1 }, "challenge-1", "127.0.0.1", 7777, now)).toMatch(/kind 22242/);
    expect(authEventProblem(ok, "challenge-2", "127.0.0.1", 7777, now)).toMatch(/challenge/);
    expect(authEventProblem({ ...ok, tags: [["relay", "ws://127.0.0.1:7777"]] }, "challenge-1", "127.0.0.1", 7777, now)).toMatch(/challenge/);
    expect(authEventProblem(ok, "challenge-1", "127.0.0.1", 7777, now + AUTH_WINDOW_SECS + 1)).toMatch(/created_at/);
    expect(authEventProblem(ok, "challenge-1", "127.0.0.1", 7777, now - AUTH_WINDOW_SECS)).toBeUndefined();
  });
});
