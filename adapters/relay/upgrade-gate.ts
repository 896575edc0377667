// The embedded relay's door: every WebSocket upgrade passes here before `ws` sees it. A web page
// (any `Origin` not listed) gets 403, a connection over the limits 503; both are counted and the
// socket is closed. A connection's slot is held from the upgrade until its socket closes, so a
// burst of upgrades cannot slip past the limits while they complete.

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { newConnectionRate, refuseUpgrade, type ConnectionLimits, type UpgradeRefusal } from "../../src/relay-guard/admission.js";
import { fullBucket, take } from "../../src/relay-guard/token-bucket.js";
import type { RelayCounters } from "./relay-counters.js";

export interface GateOptions {
  counters: RelayCounters;
  /** Undefined: no limit. */
  connections?: ConnectionLimits;
  /** Undefined: any origin (an open relay). */
  allowedOrigins?: readonly string[];
  onConnection(ws: WebSocket, address: string): void;
}

const STATUS_TEXT = { 403: "Forbidden", 503: "Service Unavailable" } as const;
// Sockets beyond the connection limit still get their 503, up to this many more; past that
// the server drops them unanswered (counted as connections_dropped).
const REFUSAL_HEADROOM = 2;
// A client must finish its HTTP upgrade request within this time.
const UPGRADE_TIMEOUT_MS = 10_000;

export function gateUpgrades(server: Server, wss: WebSocketServer, o: GateOptions): void {
  let total = 0;
  const byAddress = new Map<string, number>();
  const rate = o.connections ? newConnectionRate(o.connections) : undefined;
  let bucket = rate ? fullBucket(rate, Date.now()) : undefined;
  if (o.connections) server.maxConnections = o.connections.maxConnections * REFUSAL_HEADROOM;
  server.headersTimeout = UPGRADE_TIMEOUT_MS;
  server.requestTimeout = UPGRADE_TIMEOUT_MS;
  server.on("drop", () => o.counters.refuse("connections_dropped"));
  server.on("request", (_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("a Nostr relay: connect with a WebSocket\n");
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const address = req.socket.remoteAddress ?? "unknown";
    const origin = req.headers.origin;
    let rateOk = true;
    if (rate && bucket) ({ ok: rateOk, bucket } = take(bucket, rate, 1, Date.now()));
    const refusal = refuseUpgrade(
      { origin, address },
      { total, fromAddress: byAddress.get(address) ?? 0 },
      rateOk,
      o.connections ?? { maxConnections: Number.POSITIVE_INFINITY, maxConnectionsPerAddress: Number.POSITIVE_INFINITY, newConnectionsPerSecond: Number.POSITIVE_INFINITY },
      o.allowedOrigins ?? (origin !== undefined ? [origin] : []),
    );
    if (refusal) {
      refuse(socket, refusal, o.counters);
      return;
    }
    total++;
    byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
    let held = true;
    socket.once("close", () => {
      if (!held) return;
      held = false;
      total--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
    wss.handleUpgrade(req, socket, head, (ws) => o.onConnection(ws, address));
  });
}

function refuse(socket: Duplex, r: UpgradeRefusal, counters: RelayCounters): void {
  counters.refuse(r.reason);
  const body = `${r.message}\n`;
  socket.end(`HTTP/1.1 ${r.status} ${STATUS_TEXT[r.status]}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  // A client that does not read its answer does not keep the socket.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
