// One live NDK subscription pinned to one relay, so every event arrives with the relay that
// actually sent it. (Stored-event queries do not use NDK: query-connection.ts.)

import NDK, { NDKRelaySet, NDKSubscriptionCacheUsage, type NDKEvent, type NDKRelay, type NDKSubscription } from "@nostr-dev-kit/ndk";
import type { RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

export interface RelaySubHandlers {
  onEvent(ev: NostrEvent): void;
  onEose?(): void;
  /** The relay ended the subscription itself (CLOSED), with its reason. */
  onClosed?(reason: string): void;
}

/** NDK remembers every event id a subscription saw, forever; a live one would grow without end. */
const FIRST_SEEN_LIMIT = 10_000;

export function openRelaySub(ndk: NDK, relay: NDKRelay, filters: RelayFilter[], h: RelaySubHandlers): NDKSubscription {
  const sub = ndk.subscribe(
    filters,
    {
      closeOnEose: false,
      groupable: false,
      relaySet: new NDKRelaySet(new Set([relay]), ndk),
      // Without it NDK hands this subscription matching events that other relays sent.
      exclusiveRelay: true,
      cacheUsage: NDKSubscriptionCacheUsage.ONLY_RELAY,
      dontSaveToCache: true,
      skipOptimisticPublishEvent: true,
      // NDK would verify signatures on the main thread with pure-JS noble (~260 ev/s here).
      // Safe to skip: the daemon verifies id and signature of every event it receives, in a
      // worker pool, before the event touches any state; an event NDK passes on unverified is
      // verified there, and a forged one is rejected there.
      skipVerification: true,
      skipValidation: true,
    },
    false,
  );
  sub.on("event", (ev: NDKEvent, from: NDKRelay | undefined) => {
    // The relay url is the daemon's high-water-mark key: never attribute an event to the wrong one.
    if (from !== relay) return;
    if (sub.eventFirstSeen.size > FIRST_SEEN_LIMIT) sub.eventFirstSeen.clear();
    h.onEvent(toNostrEvent(ev));
  });
  if (h.onEose) sub.on("eose", h.onEose);
  if (h.onClosed) sub.on("closed", (_relay: NDKRelay, reason: string) => h.onClosed?.(reason));
  sub.start();
  return sub;
}

/** The wire event back out of NDK's wrapper (the daemon checks its shape and signature itself). */
function toNostrEvent(ev: NDKEvent): NostrEvent {
  return {
    id: ev.id,
    pubkey: ev.pubkey,
    created_at: ev.created_at ?? 0,
    kind: ev.kind ?? 0,
    tags: ev.tags,
    content: ev.content,
    sig: ev.sig ?? "",
  };
}
