// src/fifo.ts: first in, first out, through its compaction, and a waiting item taken out.

import { describe, expect, it } from "vitest";
import { Fifo } from "../../src/fifo.js";

describe("Fifo", () => {
  it("gives items back in the order pushed, across its compaction", () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5_000; i++) {
      q.push(i);
      if (i % 3 === 0) out.push(q.shift()!);
    }
    while (q.size > 0) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect(q.shift()).toBeUndefined();
  });

  it("takes a waiting item out, and not one already shifted", () => {
    const q = new Fifo<string>();
    for (const s of ["a", "b", "c"]) q.push(s);
    expect(q.shift()).toBe("a");
    expect(q.remove("a")).toBe(false);
    expect(q.remove("c")).toBe(true);
    expect(q.size).toBe(1);
    expect(q.shift()).toBe("b");
  });
});
