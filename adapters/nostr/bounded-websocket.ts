// ws's WebSocket with a frame limit, installed as the global WebSocket: NDK creates its sockets
// from the global, with no way to pass options, and ws's default limit is 100 MiB. With it a relay
// cannot make the daemon buffer more than one frame of `maxPayload` bytes on a connection.

import { WebSocket, type ClientOptions } from "ws";

// NDK opens its sockets with no handshake timeout: a relay that accepts the connection and never
// answers the upgrade (one still starting, or a hostile one) would hold it "connecting" forever,
// and neither NDK nor the gateway's reconnector tries again while a connection is in flight.
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Takes the text of an EVENT frame (`["EVENT",…`) a relay sent on one of the daemon's sockets. */
export type EventFrameTap = (text: string) => void;

// By relay url (normalized): the taps of the live subscriptions on that relay's sockets.
const taps = new Map<string, Set<EventFrameTap>>();
const EVENT_PREFIX = Buffer.from('["EVENT",');
const urlKey = (url: string) => {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
};

/**
 * Hands every EVENT frame from `url`'s sockets to `tap` instead of NDK (live-subscription.ts):
 * NDK wrapped each one in an event object, matched and deduplicated it for the subscription
 * and emitted it, ~80 µs of the main thread an event (docs/performance.md, "The first budget, by
 * stage"). NDK keeps every other frame: EOSE, CLOSED, AUTH, OK, NOTICE. Returns the undo.
 */
export function tapEventFrames(url: string, tap: EventFrameTap): () => void {
  const key = urlKey(url);
  let set = taps.get(key);
  if (!set) taps.set(key, (set = new Set()));
  set.add(tap);
  return () => {
    set.delete(tap);
    if (set.size === 0 && taps.get(key) === set) taps.delete(key);
  };
}

/** Whether the frame starts with `["EVENT",`, byte by byte (no view of it made per frame). */
function isEventFrame(data: Buffer): boolean {
  if (data.length <= EVENT_PREFIX.length) return false;
  for (let i = 0; i < EVENT_PREFIX.length; i++) if (data[i] !== EVENT_PREFIX[i]) return false;
  return true;
}

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

  /** This socket's key in `taps`, made once (a URL parse per frame cost more than the check). */
  private tapKey: string | undefined;

  // ws emits "message" (data, isBinary) for every frame; NDK listens through onmessage.
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === "message" && args[1] === false && taps.size > 0) {
      const data = args[0];
      const set = Buffer.isBuffer(data) && isEventFrame(data) ? taps.get((this.tapKey ??= urlKey(this.url))) : undefined;
      if (set && set.size > 0) {
        const text = (data as Buffer).toString();
        for (const tap of set) tap(text);
        return true;
      }
    }
    return super.emit(event, ...args);
  }
}

/** Makes every socket created from the global WebSocket refuse frames over `maxPayload` bytes. */
export function installBoundedWebSocket(maxPayload: number): void {
  BoundedWebSocket.maxPayload = maxPayload;
  // Replaced, not only filled in: Node 22's own WebSocket has no frame limit either.
  (globalThis as { WebSocket?: unknown }).WebSocket = BoundedWebSocket;
}
