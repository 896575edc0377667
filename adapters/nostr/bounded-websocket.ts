// ws's WebSocket with a frame limit, installed as the global WebSocket: NDK creates its sockets
// from the global, with no way to pass options, and ws's default limit is 100 MiB. With it a relay
// cannot make the daemon buffer more than one frame of `maxPayload` bytes on a connection.

import { WebSocket, type ClientOptions } from "ws";

// NDK opens its sockets with no handshake timeout: a relay that accepts the connection and never
// answers the upgrade (one still starting, or a hostile one) would hold it "connecting" forever,
// and neither NDK nor the gateway's reconnector tries again while a connection is in flight.
const HANDSHAKE_TIMEOUT_MS = 10_000;

export class BoundedWebSocket extends WebSocket {
  /** One limit for every socket made from the global (the process holds one daemon). */
  static maxPayload = 1024 * 1024;

  constructor(address: string | URL, protocols?: string | string[], options?: ClientOptions) {
    super(address, protocols ?? [], {
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      ...options,
      maxPayload: Math.min(options?.maxPayload ?? Number.POSITIVE_INFINITY, BoundedWebSocket.maxPayload),
    });
  }
}

/** Makes every socket created from the global WebSocket refuse frames over `maxPayload` bytes. */
export function installBoundedWebSocket(maxPayload: number): void {
  BoundedWebSocket.maxPayload = maxPayload;
  // Replaced, not only filled in: Node 22's own WebSocket has no frame limit either.
  (globalThis as { WebSocket?: unknown }).WebSocket = BoundedWebSocket;
}
