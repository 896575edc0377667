// NDK 3 is built for browser clients; these are the few adjustments a long-running daemon
// needs from it, kept in one place so each is easy to check against a new NDK release.

import NDK, { NDKEvent, NDKRelayStatus, type NDKRelay } from "@nostr-dev-kit/ndk";
import type { NostrEvent } from "../../src/types.js";
import type { AuthOutcome } from "./auth-answer.js";
import { installBoundedWebSocket } from "./bounded-websocket.js";

/** How many recent event ids NDK keeps to know which relays delivered them. */
const SEEN_EVENTS_CAPACITY = 10_000;

export interface DaemonNdkOptions {
  /** The largest frame a relay may send (the global WebSocket's maxPayload). */
  maxFrameBytes: number;
  /** Answers relays' AUTH challenges (NIP-42); without it none is answered. */
  auth?: AuthAnswering;
}

export interface AuthAnswering {
  /** The signed kind 22242 event answering `challenge` from the relay at `relayUrl`. */
  sign(challenge: string, relayUrl: string): Promise<NostrEvent>;
  asked(relay: NDKRelay): void;
  answered(relay: NDKRelay, outcome: AuthOutcome): void;
}

/** How long the relay has to answer our AUTH. */
const AUTH_ANSWER_TIMEOUT_MS = 10_000;

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
  if (o.auth) answerAuth(ndk, o.auth);
  // NDK's own table of "which relays sent event X" is an LRU that scans all its 10,000 entries
  // for expiry on every insert: it alone caps delivery at ~2,000 ev/s and falls to ~700 ev/s by
  // 20,000 events. The same bound without expiry costs O(1) per event.
  ndk.subManager.seenEvents = new SeenEvents(SEEN_EVENTS_CAPACITY) as unknown as typeof ndk.subManager.seenEvents;
  return ndk;
}

/** The parts of NDK's connection to a relay that answering AUTH ourselves touches. */
interface Connectivity {
  _status: NDKRelayStatus;
  auth(ev: NDKEvent): Promise<unknown>;
  retryPendingAuthPublishes(): void;
  rejectPendingAuthPublishes(err: Error): void;
}

/**
 * NIP-42, answered by the daemon rather than by NDK's own flow. NDK's policies either return a
 * signed event, and then a refused AUTH is an unhandled rejection (it awaits the relay's OK
 * without a catch), or `true`, and then NDK announces "authed" before the relay has answered:
 * every subscription is sent again under a new id then, and again at each later challenge of a
 * relay that never accepts, and what arrives for an abandoned id meanwhile is dropped. Here the
 * policy sends the AUTH and waits for the OK itself, then leaves the relay AUTHENTICATED (NDK
 * re-sends the subscriptions the relay refused before, once, and the publishes it refused with
 * `auth-required:`) or CONNECTED again (those publishes fail, with the relay's reason). It
 * returns false, so NDK adds nothing of its own.
 */
function answerAuth(ndk: NDK, a: AuthAnswering): void {
  ndk.relayAuthDefaultPolicy = async (relay, challenge) => {
    a.asked(relay);
    const c = relay.connectivity as unknown as Connectivity;
    let outcome: AuthOutcome;
    try {
      const ev = new NDKEvent(ndk, await a.sign(challenge, relay.url));
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to our AUTH within ${AUTH_ANSWER_TIMEOUT_MS} ms`)), AUTH_ANSWER_TIMEOUT_MS);
        c.auth(ev).then(resolve, reject).finally(() => clearTimeout(timer));
      });
      outcome = { accepted: true };
    } catch (err) {
      outcome = { accepted: false, reason: err instanceof Error ? err.message : String(err) };
    }
    // Disconnected meanwhile: the next connection gets its own challenge.
    if (c._status !== NDKRelayStatus.AUTHENTICATING) return false;
    a.answered(relay, outcome);
    if (outcome.accepted) {
      c._status = NDKRelayStatus.AUTHENTICATED;
      relay.emit("authed");
      c.retryPendingAuthPublishes();
    } else {
      c._status = NDKRelayStatus.CONNECTED;
      c.rejectPendingAuthPublishes(new Error(outcome.reason));
    }
    return false;
  };
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
