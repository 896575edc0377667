// The slab the log's lines are encoded into (adapters/fs-log/line-slab.ts): each line's bytes
// are its own view, whatever is encoded after it, in a slab or past one.

import { describe, expect, it } from "vitest";
import { LineSlab } from "../../adapters/fs-log/line-slab.js";

describe("LineSlab", () => {
  it("keeps every line's bytes intact as later lines fill the slab and the next ones", () => {
    const slab = new LineSlab();
    // ~1.7 KB lines with multi-byte characters (2, 3 and 4 bytes in UTF-8): a few hundred of
    // them fill several slabs.
    const lines = Array.from({ length: 600 }, (_, i) => `{"n":${i + 1},"t":"event","c":"${"é€😀x".repeat(100)}${"a".repeat(i % 700)}"}`);
    const views = lines.map((l) => slab.encode(l));
    views.forEach((v, i) => expect(v.toString("utf8")).toBe(lines[i]));
    expect(new Set(views.map((v) => v.buffer)).size).toBeGreaterThan(1);
  });

  it("gives a line too long for a slab's share a buffer of its own", () => {
    const slab = new LineSlab();
    const small = slab.encode("first");
    const long = "z".repeat(200_000);
    const big = slab.encode(long);
    const after = slab.encode("after");
    expect(big.toString()).toBe(long);
    expect(big.buffer).not.toBe(small.buffer);
    expect(after.buffer).toBe(small.buffer);
    expect(small.toString()).toBe("first");
    expect(after.toString()).toBe("after");
  });

  it("encodes an empty line as no bytes", () => {
    expect(new LineSlab().encode("").length).toBe(0);
  });
});
