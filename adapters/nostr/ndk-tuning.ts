// NDK 3 is built for browser clients; these are the few adjustments a long-running daemon
// needs from it, kept in one place so each is easy to check against a new NDK release.

import NDK, { NDKPrivateKeySigner, type NDKRelay } from "@nostr-dev-kit/ndk";
import { installBoundedWebSocket } from "./bounded-websocket.js";

/** How many recent event ids NDK keeps to know which relays delivered them. */
const SEEN_EVENTS_CAPACITY = 10_000;

export interface DaemonNdkOptions {
  /** The largest frame a relay may send (the global WebSocket's maxPayload). */
  maxFrameBytes: number;
  /** The key that answers relays' AUTH challenges (NIP-42); without one, none is answered. */
  authKey?: Uint8Array;
  /** Called with the NDK relay that sent an AUTH challenge. */
  onAuthChallenge(relay: NDKRelay): void;
}

/**
 * An NDK for a fixed set of relays. No outbox model, no relay lists fetched from users: the
 * daemon talks to the relays it was configured with, nothing else.
 */
export function createDaemonNdk(relayUrls: readonly string[], o: DaemonNdkOptions): NDK {
  // NDK looks for a global WebSocket and, on Node 20 without one, never connects and never says so.
  installBoundedWebSocket(o.maxFrameBytes);
  const ndk = new NDK({
    explicitRelayUrls: [...relayUrls],
    enableOutboxModel: false,
    autoConnectUserRelays: false,
  });
  if (o.authKey) {
    // Answering `true` makes NDK sign the AUTH event with ndk.signer (never used for anything
    // else: the daemon's events are signed before NDK sees them), retry the publishes the relay
    // refused with `auth-required:` once it accepts, and re-send subscriptions after "authed".
    // (Returning a signed event instead would leave a refused AUTH as an unhandled rejection.)
    ndk.signer = new NDKPrivateKeySigner(o.authKey);
    ndk.relayAuthDefaultPolicy = async (relay) => {
      o.onAuthChallenge(relay);
      return true;
    };
  }
  // NDK's own table of "which relays sent event X" is an LRU that scans all its 10,000 entries
  // for expiry on every insert: it alone caps delivery at ~2,000 ev/s and falls to ~700 ev/s by
  // 20,000 events. The same bound without expiry costs O(1) per event.
  ndk.subManager.seenEvents = new SeenEvents(SEEN_EVENTS_CAPACITY) as unknown as typeof ndk.subManager.seenEvents;
  return ndk;
}

/**
 * NDK declares a relay "flapping" when three successive connections lasted about as long as each
 * other (as failed attempts on a relay that is down do: a few ms each); it then disconnects it,
 * stops its connection monitors for good and waits 10 s or more before trying again. The gateway
 * runs its own backoff, so the history NDK judges by is cleared after each disconnect.
 */
export function forgetConnectionHistory(relay: NDKRelay): void {
  relay.connectionStats.durations.length = 0;
}

/**
 * Disconnects a relay for good. Each NDKRelay re-arms a 30 s timer (validation-ratio upkeep)
 * forever and offers no way to stop it, so a process would never exit on its own after
 * close(); replacing the method ends the chain when the pending timer next fires.
 */
export function retireRelay(relay: NDKRelay): void {
  relay.removeAllListeners();
  relay.disconnect();
  (relay as unknown as { updateValidationRatio(): void }).updateValidationRatio = () => undefined;
}

/** Bounded map with first-in-first-out eviction; the `get`/`set` NDK uses on `seenEvents`. */
class SeenEvents<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  get(key: string): V | null {
    return this.map.get(key) ?? null;
  }

  set(key: string, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    return this;
  }
}
