// Whether a string is lowercase hex of an exact length: ids, pubkeys and signatures, checked on
// every inbound event (its id, pubkey and sig, its e and p tags, its conversation's root), eleven
// times an event on the live path. A table lookup per character: /^[0-9a-f]{64}$/ took ~250 ns
// a test there (perf, the live path's main thread), this ~90; a comparison per character was no
// faster than the pattern, its branches mispredicted on random hex.

const LOWER_HEX = new Uint8Array(128);
for (const c of "0123456789abcdef") LOWER_HEX[c.charCodeAt(0)] = 1;

/** `s` is a string of exactly `length` characters, each 0-9 or a-f. */
export function isLowerHex(s: unknown, length: number): s is string {
  if (typeof s !== "string" || s.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || LOWER_HEX[c] === 0) return false;
  }
  return true;
}
