// Where the event's object lies in the bytes of an EVENT frame, `["EVENT", "<sub id>", {…}]`:
// the log can then write those bytes as they are (src/edge/sent-bytes.ts says when it may).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const EVENT_STRING = Buffer.from('"EVENT"');

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * The bytes of the frame's object, given the frame parsed (`msg`) into `["EVENT", sub id, object]`;
 * undefined for any other frame. A view of `frame`, not a copy. JSON.parse has accepted the frame,
 * so after the object there is nothing but whitespace and the closing bracket.
 */
export function eventObjectBytes(frame: Uint8Array, msg: readonly unknown[]): Uint8Array | undefined {
  if (msg.length !== 3 || msg[0] !== "EVENT" || typeof msg[1] !== "string") return undefined;
  if (typeof msg[2] !== "object" || msg[2] === null || Array.isArray(msg[2])) return undefined;
  let i = skipSpace(frame, 0);
  if (frame[i] !== OPEN_BRACKET) return undefined;
  i = skipSpace(frame, i + 1);
  for (let k = 0; k < EVENT_STRING.length; k++) if (frame[i + k] !== EVENT_STRING[k]) return undefined;
  i = skipSpace(frame, i + EVENT_STRING.length);
  if (frame[i] !== COMMA) return undefined;
  i = skipSpace(frame, i + 1);
  if (frame[i] !== QUOTE) return undefined;
  // The sub id, a JSON string: an escaped quote does not end it.
  for (i++; i < frame.length && frame[i] !== QUOTE; i++) if (frame[i] === BACKSLASH) i++;
  i = skipSpace(frame, i + 1);
  if (frame[i] !== COMMA) return undefined;
  i = skipSpace(frame, i + 1);
  if (frame[i] !== OPEN_BRACE) return undefined;
  let end = frame.length - 1;
  while (end > i && isSpace(frame[end])) end--;
  if (frame[end] !== CLOSE_BRACKET) return undefined;
  for (end--; end > i && isSpace(frame[end]); end--);
  if (frame[end] !== CLOSE_BRACE) return undefined;
  return frame.subarray(i, end + 1);
}

function skipSpace(frame: Uint8Array, i: number): number {
  while (isSpace(frame[i])) i++;
  return i;
}
