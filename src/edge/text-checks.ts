// Checks on the text of an event (content and tag entries) that JSON parsing lets through.

/** UTF-8 size, the unit relays and limits are stated in (a JS string's length counts UTF-16 units). */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");

// U+0000 is valid JSON ("\u0000") but truncates strings in C-based tools, SQLite text
// functions and terminals: an event carrying one would read differently in different places.
export const hasNul = (s: string): boolean => s.includes("\u0000");

// A lone surrogate ("\ud800" in the JSON) has no UTF-8 encoding, so the NIP-01 serialization the
// id is hashed over is not defined: implementations disagree (escape, U+FFFD, reject). Refused.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/** A short, printable quote of untrusted text for a rejection detail (never the whole thing). */
export function quote(value: unknown, max = 40): string {
  const s = typeof value === "string" ? value : String(value);
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}
