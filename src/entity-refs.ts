// What a `nostr:` reference (NIP-19 nevent, note, naddr) names, as a relay filter, and whether
// an event a relay returned is that one: the pure half of inlining references (entities.ts).

import { decode } from "nostr-tools/nip19";
import type { RelayFilter } from "./ports.js";
import type { NostrEvent } from "./types.js";

type Named = { id: string } | { kind: number; pubkey: string; d: string };

function named(bech32: string): Named | undefined {
  try {
    const r = decode(bech32);
    if (r.type === "note") return { id: r.data };
    if (r.type === "nevent") return { id: r.data.id };
    if (r.type === "naddr") return { kind: r.data.kind, pubkey: r.data.pubkey, d: r.data.identifier };
  } catch {
    // Not a reference: nothing to fetch.
  }
  return undefined;
}

/** The filter that asks a relay for the referenced event. */
export function entityFilter(bech32: string): RelayFilter | undefined {
  const n = named(bech32);
  if (!n) return undefined;
  return "id" in n ? { ids: [n.id], limit: 1 } : { kinds: [n.kind], authors: [n.pubkey], "#d": [n.d], limit: 1 };
}

/** Whether `ev` is the referenced event (a relay may answer with anything). */
export function isEntity(bech32: string, ev: NostrEvent): boolean {
  const n = named(bech32);
  if (!n) return false;
  if ("id" in n) return ev.id === n.id;
  return ev.kind === n.kind && ev.pubkey === n.pubkey && ev.tags.some((t) => t[0] === "d" && t[1] === n.d);
}
