// Resolves `nostr:` references for agent contexts from the relays: the event a reference names,
// its signature checked like any inbound event's. Best effort within a short time: a reference
// that cannot be had in time stays as text (src/entities.ts), it never holds a run up for long.

import { entityFilter, isEntity } from "../../src/entity-refs.js";
import { readEnvelope, tagsShapeProblem } from "../../src/edge/envelope.js";
import type { EntityFetcher, RelayGateway } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

const DEFAULT_TIMEOUT_MS = 3_000;

export class RelayEntityFetcher implements EntityFetcher {
  constructor(
    private readonly gateway: Pick<RelayGateway, "fetch">,
    /** True when the id and signature are the event's own. */
    private readonly verify: (ev: NostrEvent) => Promise<boolean>,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  async fetch(bech32: string): Promise<NostrEvent | undefined> {
    const filter = entityFilter(bech32);
    if (!filter) return undefined;
    try {
      // Newest first: an naddr names a replaceable event, whose latest version is the one meant.
      const found = (await this.gateway.fetch([filter], this.timeoutMs)).flatMap(wellFormed).sort((a, b) => b.created_at - a.created_at);
      for (const ev of found) if (isEntity(bech32, ev) && (await this.verify(ev))) return ev;
    } catch {
      // A relay that fails leaves the reference as text, as one that does not have the event.
    }
    return undefined;
  }
}

/** The event if it has the NIP-01 shape (relays answer with anything): [] otherwise. */
function wellFormed(raw: unknown): NostrEvent[] {
  const read = readEnvelope(raw);
  return read.ok && tagsShapeProblem(read.event.tags) === undefined ? [read.event] : [];
}
