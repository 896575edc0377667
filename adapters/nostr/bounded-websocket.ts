// ws's WebSocket with a frame limit, installed as the global WebSocket: NDK creates its sockets
// from the global, with no way to pass options, and ws's default limit is 100 MiB. With it a relay
// cannot make the daemon buffer more than one frame of `maxPayload` bytes on a connection.

import { WebSocket, type ClientOptions } from "ws";

export class BoundedWebSocket extends WebSocket {
  /** One limit for every socket made from the global (the process holds one daemon). */
  static maxPayload = 1024 * 1024;

  constructor(address: string | URL, protocols?: string | string[], options?: ClientOptions) {
    super(address, protocols ?? [], { ...options, maxPayload: Math.min(options?.maxPayload ?? Number.POSITIVE_INFINITY, BoundedWebSocket.maxPayload) });
  }
}

/** Makes every socket created from the global WebSocket refuse frames over `maxPayload` bytes. */
export function installBoundedWebSocket(maxPayload: number): void {
  BoundedWebSocket.maxPayload = maxPayload;
  // Replaced, not only filled in: Node 22's own WebSocket has no frame limit either.
  (globalThis as { WebSocket?: unknown }).WebSocket = BoundedWebSocket;
}
