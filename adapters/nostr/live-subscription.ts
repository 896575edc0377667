// A live subscription across several relays: one pinned NDK subscription per relay, re-sent
// on that relay after each reconnect (NDK does not re-send a REQ on a new connection). NDK sends
// the REQ, answers AUTH, sends it again after AUTH and reports EOSE and CLOSED; the events
// themselves are taken off the socket before NDK sees them (bounded-websocket.ts tapEventFrames),
// parsed once, matched against the filters as NDK did (a stranger's event a relay sends anyway
// costs nothing more), and handed on in order, a slice per turn of the event loop (live-backlog.ts).

import type NDK from "@nostr-dev-kit/ndk";
import type { NDKSubscription } from "@nostr-dev-kit/ndk";
import type { RelayFilter, RelaySubscription } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { matchFilters, type Filter } from "nostr-tools/filter";
import { tapEventFrames } from "./bounded-websocket.js";
import { LiveBacklog } from "./live-backlog.js";
import type { RelayLink } from "./relay-links.js";
import { openRelaySub } from "./relay-sub.js";

export interface LiveSubscriptionHooks {
  onEvent(ev: NostrEvent, url: string): void;
  /** Handed on at once, ahead of the events waiting (when none of its conversation is among them). */
  urgent?(ev: NostrEvent): boolean;
  onClosedByRelay(url: string, reason: string): void;
  /** Called once, by close(). */
  onDone(sub: LiveSubscription): void;
}

export class LiveSubscription implements RelaySubscription {
  private readonly perRelay = new Map<string, NDKSubscription>();
  /** Relays whose current REQ has been answered with EOSE, and who waits for the others. */
  private readonly eosed = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly untaps = new Map<string, () => void>();
  private closed = false;
  private readonly backlog: LiveBacklog;

  constructor(
    private readonly ndk: NDK,
    private readonly links: readonly RelayLink[],
    private readonly filters: RelayFilter[],
    private readonly hooks: LiveSubscriptionHooks,
  ) {
    this.backlog = new LiveBacklog((ev, url) => {
      if (!this.closed) hooks.onEvent(ev, url);
    }, hooks.urgent);
    for (const link of links) {
      this.untaps.set(link.url, tapEventFrames(link.url, (text) => this.frame(text, link.url)));
      this.open(link);
    }
  }

  /** Re-sends the REQ on `url` (its connection is new). */
  restart(url: string): void {
    const link = this.links.find((l) => l.url === url);
    if (this.closed || !link) return;
    this.perRelay.get(url)?.stop();
    this.eosed.delete(url);
    this.open(link);
  }

  /**
   * Resolves true once `relay` (or every relay connected now) has answered the REQ with EOSE:
   * from then on what it receives is delivered here. False at the timeout or on close().
   */
  active(timeoutMs: number, relay?: string): Promise<boolean> {
    const urls = relay !== undefined ? [relay] : this.links.filter((l) => l.relay.connected).map((l) => l.url);
    const done = () => urls.every((u) => this.eosed.has(u));
    if (done()) return Promise.resolve(!this.closed);
    return new Promise((resolve) => {
      const check = () => {
        if (!done() && !this.closed) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(!this.closed);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  close(): void {
    if (this.closed) return;
    this.backlog.flush();
    this.closed = true;
    for (const sub of this.perRelay.values()) sub.stop();
    this.perRelay.clear();
    for (const untap of this.untaps.values()) untap();
    this.untaps.clear();
    for (const check of [...this.waiters]) check();
    this.hooks.onDone(this);
  }

  /**
   * An EVENT frame from `url`: the event, if it matches the filters. One whose fields the match
   * cannot read (tags not an array…) is dropped there, as NDK dropped it; anything else malformed
   * goes on, for the edge checks to count.
   */
  private frame(text: string, url: string): void {
    if (this.closed) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // Not NIP-01 (NDK dropped these too).
    }
    if (!Array.isArray(msg) || msg[0] !== "EVENT") return;
    const ev = msg[2] as NostrEvent;
    let matches: boolean;
    try {
      matches = matchFilters(this.filters as Filter[], ev);
    } catch {
      matches = false;
    }
    if (matches) this.backlog.add(ev, url);
  }

  private open(link: RelayLink): void {
    this.perRelay.set(
      link.url,
      openRelaySub(this.ndk, link.relay, this.filters, {
        onEvent: (ev) => {
          if (!this.closed) this.hooks.onEvent(ev, link.url);
        },
        onEose: () => {
          this.eosed.add(link.url);
          for (const check of [...this.waiters]) check();
        },
        onClosed: (reason) => this.hooks.onClosedByRelay(link.url, reason),
      }),
    );
  }
}
