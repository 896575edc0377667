// The lowercase-hex test behind every id, pubkey and signature check (src/hex.ts): it must agree
// with the pattern it replaced, /^[0-9a-f]{n}$/, on every character a string can hold.

import { describe, expect, it } from "vitest";
import { isLowerHex } from "../../src/hex.js";
import { isHex64 } from "../../src/types.js";

const HEX = "0123456789abcdef";
const pattern = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);

describe("isLowerHex", () => {
  it("agrees with /^[0-9a-f]{n}$/ for every UTF-16 unit, in the first, a middle and the last place", () => {
    const base = HEX.repeat(4);
    const re = pattern(64);
    const disagree: string[] = [];
    let refused = 0;
    for (let code = 0; code < 0x10000; code++) {
      const ch = String.fromCharCode(code);
      for (const at of [0, 31, 63]) {
        const s = base.slice(0, at) + ch + base.slice(at + 1);
        const expected = re.test(s);
        if (isLowerHex(s, 64) !== expected) disagree.push(`U+${code.toString(16)} at ${at}`);
        if (!expected) refused++;
      }
    }
    expect(disagree).toEqual([]);
    expect(refused).toBe(3 * (0x10000 - 16));
  });

  it("takes exactly the length asked, and only strings", () => {
    const sig = "ab".repeat(64);
    expect(isLowerHex(sig, 128)).toBe(true);
    expect(isLowerHex(sig, 64)).toBe(false);
    expect(isLowerHex(sig.slice(1), 128)).toBe(false);
    expect(isLowerHex(`${sig}0`, 128)).toBe(false);
    expect(isLowerHex("", 0)).toBe(true);
    for (const notString of [undefined, null, 64, ["a".repeat(64)], { length: 64 }]) expect(isHex64(notString)).toBe(false);
    expect(isHex64("A".repeat(64))).toBe(false);
    expect(isHex64("f".repeat(64))).toBe(true);
  });
});
