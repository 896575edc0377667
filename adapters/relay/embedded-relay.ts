// A real Nostr relay in-process: @nostr-relay/core over a SQLite file, served by `ws` on
// loopback. The daemon can run it as its default relay; tests run it as "the network".

import type { AddressInfo } from "node:net";
import { createOutgoingNoticeMessage } from "@nostr-relay/common";
import { NostrRelay } from "@nostr-relay/core";
import { TagQueryRepository } from "./tag-query-repository.js";
import { Validator } from "@nostr-relay/validator";
import { WebSocketServer, type RawData, type WebSocket } from "ws";

export interface EmbeddedRelayOptions {
  /** Loopback only by default: the embedded relay is not meant to face a network. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** SQLite file holding the relay's events (created when missing). */
  dbPath: string;
}

export interface EmbeddedRelay {
  url: string;
  port: number;
  /** Drops every client, stops listening and closes the database. Idempotent. */
  close(): Promise<void>;
}

// The library's default of 20 subscriptions per connection is an LRU that silently evicts the
// oldest: a client holding many live subscriptions would lose one without being told.
const MAX_SUBSCRIPTIONS_PER_CLIENT = 256;

export async function startEmbeddedRelay(opts: EmbeddedRelayOptions): Promise<EmbeddedRelay> {
  const host = opts.host ?? "127.0.0.1";
  const repository = new TagQueryRepository(opts.dbPath);
  await repository.init();
  const relay = new NostrRelay(repository, {
    // A cached REQ result would hide events stored in the last second from a back-fill.
    filterResultCacheTtl: 0,
    // The per-id result cache would remember a forged copy's rejection and then refuse the
    // genuine event with the same id for ten minutes.
    eventHandlingResultCacheTtl: 0,
    maxSubscriptionsPerClient: MAX_SUBSCRIPTIONS_PER_CLIENT,
  });
  const validator = new Validator();

  const wss = new WebSocketServer({ host, port: opts.port ?? 0 });
  wss.on("connection", (ws, req) => serveClient(relay, validator, ws, req.socket.remoteAddress));
  try {
    await listening(wss);
  } catch (err) {
    await relay.destroy();
    await repository.destroy();
    throw err;
  }
  const port = (wss.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= shutdown(wss, relay, repository));
  return { url: `ws://${host}:${port}`, port, close };
}

function serveClient(relay: NostrRelay, validator: Validator, ws: WebSocket, ip: string | undefined): void {
  relay.handleConnection(ws, ip);
  ws.on("message", (data: RawData) => void handleFrame(relay, validator, ws, data));
  ws.on("close", () => relay.handleDisconnect(ws));
  // A client that vanishes mid-frame must not take the relay down with an unhandled 'error'.
  ws.on("error", () => relay.handleDisconnect(ws));
}

async function handleFrame(relay: NostrRelay, validator: Validator, ws: WebSocket, data: RawData): Promise<void> {
  try {
    const message = await validator.validateIncomingMessage(data);
    await relay.handleMessage(ws, message);
  } catch (err) {
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify(createOutgoingNoticeMessage(err instanceof Error ? err.message : String(err))));
    }
  }
}

function listening(wss: WebSocketServer): Promise<void> {
  return new Promise((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
}

async function shutdown(wss: WebSocketServer, relay: NostrRelay, repository: TagQueryRepository): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await relay.destroy();
  await repository.destroy();
}
