// A live subscription across several relays: one pinned NDK subscription per relay, re-sent
// on that relay after each reconnect (NDK does not re-send a REQ on a new connection).

import type NDK from "@nostr-dev-kit/ndk";
import type { NDKSubscription } from "@nostr-dev-kit/ndk";
import type { RelayFilter, RelaySubscription } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import type { RelayLink } from "./relay-links.js";
import { openRelaySub } from "./relay-sub.js";

export interface LiveSubscriptionHooks {
  onEvent(ev: NostrEvent, url: string): void;
  onClosedByRelay(url: string, reason: string): void;
  /** Called once, by close(). */
  onDone(sub: LiveSubscription): void;
}

export class LiveSubscription implements RelaySubscription {
  private readonly perRelay = new Map<string, NDKSubscription>();
  private closed = false;

  constructor(
    private readonly ndk: NDK,
    private readonly links: readonly RelayLink[],
    private readonly filters: RelayFilter[],
    private readonly hooks: LiveSubscriptionHooks,
  ) {
    for (const link of links) this.open(link);
  }

  /** Re-sends the REQ on `url` (its connection is new). */
  restart(url: string): void {
    const link = this.links.find((l) => l.url === url);
    if (this.closed || !link) return;
    this.perRelay.get(url)?.stop();
    this.open(link);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const sub of this.perRelay.values()) sub.stop();
    this.perRelay.clear();
    this.hooks.onDone(this);
  }

  private open(link: RelayLink): void {
    this.perRelay.set(
      link.url,
      openRelaySub(this.ndk, link.relay, this.filters, {
        closeOnEose: false,
        onEvent: (ev) => {
          if (!this.closed) this.hooks.onEvent(ev, link.url);
        },
        onClosed: (reason) => this.hooks.onClosedByRelay(link.url, reason),
      }),
    );
  }
}
