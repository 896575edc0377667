// The relay's transport limits, derived from the largest event the project accepts
// (`limits.maxEventBytes`, measured as the daemon measures it: the event's JSON in UTF-8).

import type { ClientTier } from "./client-limits.js";

/**
 * An EVENT frame: the event and its envelope (`["EVENT",` … `]`, whitespace). The event counts as
 * the daemon counts it (JSON.stringify, UTF-8); a writer that escapes more (\uXXXX for non-ASCII,
 * as Python does by default) can make an event near the limit overflow the frame: that frame ends
 * its connection (1009) instead of getting an OK false.
 */
const ENVELOPE_BYTES = 4 * 1024;
/**
 * How much larger than its JSON.stringify form an event may travel from another relay: escaping
 * every character costs at most 6 bytes (Go escapes `<>&` as \u003c…). The daemon's own sockets
 * allow for it: they read what other relays send, and they are few.
 */
const WORST_ESCAPE_FACTOR = 6;
/** REQ, CLOSE, AUTH, COUNT: a REQ with 1,000 ids or authors is ~68 KB. */
const REQUEST_FRAME_BYTES = 128 * 1024;
/**
 * The largest frame from a connection that has not authenticated as one of the project's people
 * (where the relay asks for AUTH): enough for any ordinary message, and below V8's large-object
 * size, so a crowd of strangers' frames is garbage the young generation collects cheaply.
 */
const UNAUTHENTICATED_FRAME_BYTES = 64 * 1024;
/** What the daemon's own sockets take beyond the largest event: NOTICEs and CLOSED reasons. */
const CLIENT_SLACK_BYTES = 64 * 1024;
const MIN_CLIENT_FRAME_BYTES = 1024 * 1024;

export interface TransportLimits {
  /** The largest frame the relay reads (ws maxPayload): a larger one closes the connection (1009). */
  maxFrameBytes: number;
  /** The largest frame from a connection not (yet) authenticated as one of the project's people. */
  maxUnauthenticatedFrameBytes: number;
  /** The largest frame that is not an EVENT (REQ, CLOSE, AUTH, COUNT). */
  maxRequestFrameBytes: number;
  /** The largest event the relay stores (its JSON in UTF-8, as the daemon measures it). */
  maxEventBytes: number;
  /** The largest frame the daemon's own relay connections read: a relay cannot make it buffer more. */
  clientMaxFrameBytes: number;
}

export function transportLimits(maxEventBytes: number): TransportLimits {
  const eventFrame = maxEventBytes + ENVELOPE_BYTES;
  return {
    maxFrameBytes: Math.max(eventFrame, REQUEST_FRAME_BYTES),
    maxUnauthenticatedFrameBytes: Math.min(UNAUTHENTICATED_FRAME_BYTES, Math.max(eventFrame, REQUEST_FRAME_BYTES)),
    maxRequestFrameBytes: REQUEST_FRAME_BYTES,
    maxEventBytes,
    clientMaxFrameBytes: Math.max(MIN_CLIENT_FRAME_BYTES, WORST_ESCAPE_FACTOR * maxEventBytes + CLIENT_SLACK_BYTES),
  };
}

/** Why an event whose JSON takes `bytes` is not stored, or undefined. */
export const oversizedEvent = (bytes: number, maxEventBytes: number): string | undefined =>
  (bytes > maxEventBytes ? `invalid: the event is ${bytes} bytes, limit ${maxEventBytes}` : undefined);

/** Why a frame of message `type` and `bytes` is refused once read (only EVENTs may be large), or undefined. */
export function oversizedRequest(type: string, bytes: number, limits: TransportLimits): string | undefined {
  if (type === "EVENT" || bytes <= limits.maxRequestFrameBytes) return undefined;
  return `invalid: a ${type} frame of ${bytes} bytes, limit ${limits.maxRequestFrameBytes}`;
}

/**
 * Why a frame of `bytes` from a client of `tier` is refused before it is even parsed, or
 * undefined: a client that has not authenticated gets `maxUnauthenticatedFrameBytes`.
 */
export function refuseUnread(tier: ClientTier, bytes: number, maxUnauthenticatedFrameBytes: number): string | undefined {
  if (tier !== "stranger" || bytes <= maxUnauthenticatedFrameBytes) return undefined;
  return `auth-required: frames over ${maxUnauthenticatedFrameBytes} bytes need AUTH (NIP-42) by one of the project's people`;
}
