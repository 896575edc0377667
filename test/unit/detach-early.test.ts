// detachEarly (adapters/worker-thread/detach-early.ts) spends V8's "ArrayBufferDetaching"
// protector at once, so that no code is optimized on it and thrown away at the first transfer:
// V8 traces the protector's invalidation, once, in a process that calls it (twice here), and
// never in one that only loads the module.

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const COMPILED = new URL("../../dist/adapters/worker-thread/detach-early.js", import.meta.url).href;

/** How many times a child process's V8 reports the protector spent, running `body` after the import. */
function invalidations(body: string): number {
  const script = `const { detachEarly } = await import(${JSON.stringify(COMPILED)}); ${body}`;
  const r = spawnSync(process.execPath, ["--trace-protector-invalidation", "--input-type=module", "-e", script], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\n").filter((l) => l.includes("protector cell ArrayBufferDetaching")).length;
}

describe("detachEarly", () => {
  it("spends the detaching protector once, however often it is called", () => {
    expect(invalidations("detachEarly(); detachEarly();")).toBe(1);
  });

  it("a process that does not call it keeps the protector", () => {
    expect(invalidations("void detachEarly;")).toBe(0);
  });
});
