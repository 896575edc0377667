// The bytes of an event's JSON object as its relay sent them: the log writes them as they are,
// rather than serializing the event a second time (docs/architecture.md, "The event's own
// bytes"). Only when they can hold nothing but the event: parsed again (after a restart, or on the
// index's thread) they must give back the event that was checked, and they must not make the log
// hold much more than the event itself.

import type { NostrEvent } from "../types.js";
import { textUnits } from "./text-checks.js";

/** The fields of a NIP-01 event (the edge keeps only these: src/edge/envelope.ts). */
const EVENT_FIELDS = 7;

/**
 * `sent`, if it can stand for `ev` in the log, else undefined. `raw` is the object the relay's
 * bytes were parsed into, and `ev` the event the edge made of it (validateInbound).
 *
 * - `raw` must have the seven fields and no other: a field the edge drops would stay in the log
 *   (a `__proto__` key counts too: JSON.parse makes it an own property).
 * - The bytes may be at most 3 times the event's text and 1 KB: a UTF-8 character takes up to
 *   3 bytes a UTF-16 unit, and the fixed fields well under 1 KB. A relay that pads its frames
 *   with whitespace, or escapes every character (\u00e9 for é), has its events serialized again.
 * - No line break between the tokens (LF or CR): the log's records are lines.
 *
 * Keys in another order, escapes and spacing within that bound change nothing: JSON.parse gives
 * the same event back.
 */
export function sentBytesFor(raw: unknown, ev: NostrEvent, sent: Uint8Array | undefined): Uint8Array | undefined {
  if (sent === undefined || typeof raw !== "object" || raw === null) return undefined;
  if (Object.keys(raw).length !== EVENT_FIELDS) return undefined;
  if (sent.length > 3 * textUnits(ev) + 1024) return undefined;
  return hasLineBreak(sent) ? undefined : sent;
}

// A log is JSON lines: spacing between tokens may be a line break, which would cut the record in
// two (inside a JSON string one is always escaped). Read with memchr: ~25 ns for 1.6 KB, where
// Uint8Array's own indexOf takes ~430.
function hasLineBreak(bytes: Uint8Array): boolean {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.indexOf(LF) >= 0 || b.indexOf(CR) >= 0;
}

const LF = 0x0a;
const CR = 0x0d;
