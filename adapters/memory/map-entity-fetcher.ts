// Entity fetcher backed by a map from bech32 reference to event; anything else is "not found".

import type { EntityFetcher } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

export class MapEntityFetcher implements EntityFetcher {
  private readonly events: Map<string, NostrEvent>;
  /** Every reference asked for, in order (tests check what was fetched, and how often). */
  readonly requested: string[] = [];

  constructor(entries: Iterable<readonly [string, NostrEvent]> = []) {
    this.events = new Map(entries);
  }

  set(bech32: string, ev: NostrEvent): void {
    this.events.set(bech32, ev);
  }

  async fetch(bech32: string): Promise<NostrEvent | undefined> {
    this.requested.push(bech32);
    return this.events.get(bech32);
  }
}
