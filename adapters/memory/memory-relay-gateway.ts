// One relay held in memory, with real NIP-01 filter matching (nostr-tools matchFilters):
// subscriptions get the stored matches, then live ones; fetch answers from storage; publish
// stores and delivers. It can be taken offline to test what a relay outage does.

import { matchFilters, type Filter } from "nostr-tools/filter";
import type { QueryEnd, RelayFilter, RelayGateway, RelaySubscription } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

interface Sub {
  filters: Filter[];
  onEvent: (ev: NostrEvent, relay: string) => void;
}

const newestFirst = (a: NostrEvent, b: NostrEvent) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1);

export class MemoryRelayGateway implements RelayGateway {
  private readonly events = new Map<string, NostrEvent>();
  private readonly subs = new Set<Sub>();
  private online = true;
  /** Every event published through this gateway, in order (duplicates included). */
  readonly published: NostrEvent[] = [];

  constructor(readonly url = "memory://relay") {}

  setOnline(online: boolean): void {
    this.online = online;
  }

  /** Stored events matching the filters, newest first, each filter's limit applied as relays do. */
  stored(filters: RelayFilter[]): NostrEvent[] {
    const out = new Map<string, NostrEvent>();
    const all = [...this.events.values()].sort(newestFirst);
    for (const f of filters as Filter[]) {
      const matching = all.filter((ev) => matchFilters([f], ev));
      for (const ev of matching.slice(0, f.limit ?? matching.length)) out.set(ev.id, ev);
    }
    return [...out.values()];
  }

  subscribe(filters: RelayFilter[], onEvent: (ev: NostrEvent, relay: string) => void): RelaySubscription {
    const sub: Sub = { filters: filters as Filter[], onEvent };
    this.subs.add(sub);
    if (this.online) for (const ev of this.stored(filters)) onEvent(ev, this.url);
    // Delivery is synchronous here: the subscription is active as soon as it exists.
    return { close: () => this.subs.delete(sub), active: async () => this.online };
  }

  async fetch(filters: RelayFilter[]): Promise<NostrEvent[]> {
    return this.online ? this.stored(filters) : [];
  }

  async query(relay: string, filters: RelayFilter[], onEvent: (ev: unknown) => void): Promise<QueryEnd> {
    if (!this.online || relay !== this.url) return { complete: false, reason: "offline" };
    for (const ev of this.stored(filters)) onEvent(ev);
    return { complete: true };
  }

  async publish(ev: NostrEvent): Promise<string[]> {
    this.published.push(ev);
    if (!this.online) return [];
    // A relay answers a duplicate with OK true but does not broadcast it again.
    if (this.events.has(ev.id)) return [this.url];
    this.events.set(ev.id, ev);
    for (const sub of this.subs) if (matchFilters(sub.filters, ev)) sub.onEvent(ev, this.url);
    return [this.url];
  }
}
