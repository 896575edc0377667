// A real Nostr relay in-process: @nostr-relay/core over a SQLite file, served by `ws` on
// loopback. The daemon runs it as its default relay, guarded (the project's people only, bounded
// frames, connections, rates and buffers); tests run it open as "the network".

import { createServer, type Server } from "node:http";
import type { AddressInfo, Server as NetServer } from "node:net";
import { NostrRelay } from "@nostr-relay/core";
import { Validator } from "@nostr-relay/validator";
import { WebSocketServer, type WebSocket } from "ws";
import type { AccessPolicy } from "../../src/relay-guard/access.js";
import type { ConnectionLimits } from "../../src/relay-guard/admission.js";
import { inboundRate, ratesFor, tierBeforeAuth, type ClientLimits } from "../../src/relay-guard/client-limits.js";
import { transportLimits } from "../../src/relay-guard/transport-limits.js";
import { InboundBudget } from "./inbound-budget.js";
import { AccessPlugin } from "./relay-access-plugin.js";
import { RelayCounters } from "./relay-counters.js";
import { frameHandler } from "./relay-frames.js";
import { RelaySession } from "./relay-session.js";
import { TagQueryRepository } from "./tag-query-repository.js";
import { gateUpgrades } from "./upgrade-gate.js";
import type { EmbeddedRelayStats } from "../../src/daemon-status.js";
import { installFastEventChecks } from "./fast-event-checks.js";

/** The protections; each one left out is off (an open relay, as tests use for "the network"). */
export interface RelayGuardOptions {
  /** Frames, requests and stored events bounded from this (transport-limits.ts). */
  maxEventBytes?: number;
  connections?: ConnectionLimits;
  client?: ClientLimits;
  /** What every connection but the daemon's own may send together, per second; over it they are paused. */
  inboundBytesPerSecond?: number;
  /** Origins of web pages let in; without: any. A browser always sends its page's origin. */
  allowedOrigins?: readonly string[];
  access?: AccessPolicy;
  /** Keys whose authenticated connections are the daemon's own: not rate or buffer limited. */
  trusted?: ReadonlySet<string>;
}

export interface EmbeddedRelayOptions {
  /** Loopback only by default: the embedded relay is not meant to face a network. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** SQLite file holding the relay's events (created when missing). */
  dbPath: string;
  guard?: RelayGuardOptions;
  /** A socket already listening (handed over by a parent process): used instead of host and port. */
  listenOn?: NetServer;
}

export interface EmbeddedRelay {
  url: string;
  port: number;
  stats(): EmbeddedRelayStats;
  /** Drops every client, stops listening and closes the database. Idempotent. */
  close(): Promise<void>;
}

// The library's default of 20 subscriptions per connection is an LRU that silently evicts the
// oldest: a client holding many live subscriptions would lose one without being told. With a
// client limit, REQs over it are refused before the LRU could evict.
const OPEN_MAX_SUBSCRIPTIONS = 256;

export async function startEmbeddedRelay(opts: EmbeddedRelayOptions): Promise<EmbeddedRelay> {
  const host = opts.listenOn ? (opts.listenOn.address() as AddressInfo).address : (opts.host ?? "127.0.0.1");
  const guard = opts.guard ?? {};
  const limits = guard.maxEventBytes !== undefined ? transportLimits(guard.maxEventBytes) : undefined;
  const asksAuth = guard.access !== undefined && guard.access.auth !== "off";
  // Ids and signatures checked with the daemon's verifier, not the library's pure-JS one.
  const verifier = await installFastEventChecks();
  const repository = new TagQueryRepository(opts.dbPath);
  await repository.init();
  const relay = new NostrRelay(repository, {
    // A cached REQ result would hide events stored in the last second from a back-fill.
    filterResultCacheTtl: 0,
    // The per-id result cache would remember a forged copy's rejection and then refuse the
    // genuine event with the same id for ten minutes.
    eventHandlingResultCacheTtl: 0,
    maxSubscriptionsPerClient: guard.client ? guard.client.maxSubscriptions + 1 : OPEN_MAX_SUBSCRIPTIONS,
    // Set, it makes the library send each connection its AUTH challenge (NIP-42) on connect.
    ...(asksAuth ? { hostname: host } : {}),
  });
  const counters = new RelayCounters();
  let port = 0;
  relay.register(new AccessPlugin({
    counters, host, port: () => port, nowSecs: () => Math.floor(Date.now() / 1000),
    ...(guard.access ? { access: guard.access } : {}),
    ...(guard.trusted ? { trusted: guard.trusted } : {}),
    ...(guard.client ? { client: guard.client } : {}),
    ...(limits ? { maxEventBytes: limits.maxEventBytes } : {}),
  }));
  // The library caps content at 100 KB by default: the project's event limit is the bound here.
  const validator = new Validator(limits ? { maxContentLength: limits.maxEventBytes } : {});
  const handle = frameHandler({ relay, validator, counters, ...(limits ? { limits } : {}), ...(guard.access ? { access: guard.access } : {}) });
  const client = guard.client ? { limits: guard.client, rates: ratesFor(guard.client, limits?.maxFrameBytes ?? 0) } : undefined;
  const budget = guard.inboundBytesPerSecond !== undefined
    ? new InboundBudget(inboundRate(guard.inboundBytesPerSecond, limits?.maxFrameBytes ?? 0), () => Date.now())
    : undefined;
  const sessions = new Set<RelaySession>();

  const server = createServer();
  // perMessageDeflate is off (the default): a compressed frame cannot inflate past maxPayload.
  const wss = new WebSocketServer({ noServer: true, clientTracking: false, ...(limits ? { maxPayload: limits.maxFrameBytes } : {}) });
  const onConnection = (ws: WebSocket, address: string) => {
    const session = new RelaySession(ws, {
      counters, now: () => Date.now(), handle,
      initialTier: tierBeforeAuth(asksAuth),
      ...(client ? { client } : {}),
      ...(budget ? { budget } : {}),
      ...(limits ? { maxStrangerFrameBytes: limits.maxUnauthenticatedFrameBytes } : {}),
    });
    sessions.add(session);
    counters.connections++;
    counters.accepted++;
    relay.handleConnection(session, address);
    ws.on("message", (data: Buffer) => session.receive(data));
    ws.on("close", () => {
      sessions.delete(session);
      counters.connections--;
      if (session.authed !== undefined) counters.authenticated--;
      session.closed();
      relay.handleDisconnect(session);
    });
    // A frame over maxPayload, bad UTF-8, a broken frame: ws closes with 1009/1007/1002 but would
    // wait up to 30 s for the client's close frame; the connection is cut at once instead.
    ws.on("error", (err: Error & { code?: string }) => {
      session.cut(err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" ? "frame_too_large" : "bad_frame");
    });
  };
  gateUpgrades(server, wss, {
    counters, onConnection,
    ...(guard.connections ? { connections: guard.connections } : {}),
    ...(guard.allowedOrigins ? { allowedOrigins: guard.allowedOrigins } : {}),
  });
  try {
    await listen(server, opts.listenOn ?? { host, port: opts.port ?? 0 });
  } catch (err) {
    await relay.destroy();
    await repository.destroy();
    throw err;
  }
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= shutdown(server, sessions, relay, repository));
  const stats = (): EmbeddedRelayStats => ({
    ...counters.snapshot(),
    verifier: verifier.backend,
    limits: limits && guard.connections && guard.client
      ? { ...limits, ...guard.connections, ...guard.client, inboundBytesPerSecond: guard.inboundBytesPerSecond ?? null }
      : null,
    auth: guard.access?.auth ?? null,
  });
  return { url: `ws://${host}:${port}`, port, stats, close };
}

function listen(server: Server, on: NetServer | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const done = () => {
      server.off("error", reject);
      resolve();
    };
    if ("host" in on) server.listen(on.port, on.host, done);
    else server.listen(on, done);
  });
}

async function shutdown(server: Server, sessions: Set<RelaySession>, relay: NostrRelay, repository: TagQueryRepository): Promise<void> {
  for (const s of sessions) s.ws.terminate();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await relay.destroy();
  await repository.destroy();
}
