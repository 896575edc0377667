// The gateway's view of one configured relay: its url as configured (NDK normalises urls, the
// daemon keys its high-water marks by the configured form) and NDK's object for it.

import type { NDKRelay } from "@nostr-dev-kit/ndk";

export interface RelayLink {
  url: string;
  relay: NDKRelay;
}

/** Resolves true once `relay` is connected, false if `timeoutMs` passes first. */
export function waitForConnect(relay: NDKRelay, timeoutMs: number): Promise<boolean> {
  return waitForAnyConnect([relay], timeoutMs);
}

/** Resolves true once any of `relays` is connected, false if `timeoutMs` passes first. */
export function waitForAnyConnect(relays: readonly NDKRelay[], timeoutMs: number): Promise<boolean> {
  if (relays.some((r) => r.connected)) return Promise.resolve(true);
  if (relays.length === 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (connected: boolean) => {
      clearTimeout(timer);
      for (const r of relays) r.off("connect", onConnect);
      resolve(connected);
    };
    const onConnect = () => settle(true);
    const timer = setTimeout(() => settle(false), timeoutMs);
    for (const r of relays) r.on("connect", onConnect);
  });
}
