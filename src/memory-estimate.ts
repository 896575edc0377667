// What one conversation held in memory costs, approximately, in bytes of V8 heap: what the store's
// cache is bounded by (limits.cacheBytes). Counted from the events, which are almost all of it.
// Measured (node 20, heap used after a full GC, 1,000 events parsed from log lines as the log
// reader parses them, kept with their id map): 800 B of ASCII content cost 2.4 KB per event,
// 100 KB of ASCII 101.6 KB, and 100 KB with one emoji 201.6 KB: V8 keeps a string in one byte
// per character only while every character fits in Latin-1, else in two. Beyond the content,
// an event with the six tags of a reply took ~1.6 KB (its id, pubkey, sig, tag arrays, objects).

import type { Conversation } from "./conversation-state.js";
import type { NostrEvent } from "./types.js";

/** The aggregate without events: its maps, sets, phase, turns and views. */
export const CONVERSATION_BASE_BYTES = 2_000;
/** An event and its record: the objects, the id, pubkey and signature strings, the map entry. */
const EVENT_BASE_BYTES = 700;
const TAG_BYTES = 40;
const STRING_BYTES = 16;
// A character outside Latin-1 makes V8 store the whole string two bytes per character. Tested on
// the content only (~0.6 µs for 100 KB: V8 answers it from the string's representation, but the
// call itself costs ~0.3 µs, and an event has ~20 tag values): tag values, hex and ASCII nearly
// always, are counted one byte per character, which undercounts a wide one by at most its size.
const WIDE = /[^\u0000-\u00ff]/;

export function eventMemoryBytes(ev: NostrEvent): number {
  let bytes = EVENT_BASE_BYTES + STRING_BYTES + (WIDE.test(ev.content) ? 2 : 1) * ev.content.length;
  for (const tag of ev.tags) {
    bytes += TAG_BYTES;
    for (const v of tag) bytes += STRING_BYTES + v.length;
  }
  return bytes;
}

export function conversationMemoryBytes(conv: Conversation): number {
  let bytes = CONVERSATION_BASE_BYTES;
  for (const e of conv.events) bytes += eventMemoryBytes(e.ev);
  return bytes;
}
