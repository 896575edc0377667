// The gate in front of libuv's thread pool (adapters/fs-log/pool-gate.ts): at most `depth`
// calls in the pool, the rest started in the order asked as those end.

import { describe, expect, it } from "vitest";
import { PoolGate, threadPoolSize } from "../../adapters/fs-log/pool-gate.js";

/** Calls that run until the test ends them, logging when each starts. */
function heldCalls() {
  const started: string[] = [];
  const ends = new Map<string, () => void>();
  const call = (name: string) => () => {
    started.push(name);
    return new Promise<string>((r) => ends.set(name, () => r(name)));
  };
  const end = async (name: string) => {
    ends.get(name)!();
    // Let the gate hand the slot on.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { started, call, end };
}

describe("PoolGate", () => {
  it("lets `depth` calls in at once and the others in order as those end", async () => {
    const gate = new PoolGate(3);
    const { started, call, end } = heldCalls();
    const all = ["a", "b", "c", "d", "e"].map((n) => gate.run(call(n)));
    expect(started).toEqual(["a", "b", "c"]);
    await end("b");
    expect(started).toEqual(["a", "b", "c", "d"]);
    await end("a");
    expect(started).toEqual(["a", "b", "c", "d", "e"]);
    for (const n of ["c", "d", "e"]) await end(n);
    expect(await Promise.all(all)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("frees the place of a call that throws or rejects", async () => {
    const gate = new PoolGate(1);
    await expect(gate.run(() => { throw new Error("sync"); })).rejects.toThrow("sync");
    await expect(gate.run(() => Promise.reject(new Error("async")))).rejects.toThrow("async");
    expect(await gate.run(async () => "still runs")).toBe("still runs");
  });

  it("reads the pool's size from UV_THREADPOOL_SIZE, libuv's 4 otherwise", () => {
    expect(threadPoolSize({})).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: "8" })).toBe(8);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: "zero" })).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: "0" })).toBe(4);
  });
});
