// Freed memory handed back (native/malloc, adapters/malloc/memory-trim.ts): the module is built
// by npm ci, and a process whose threads allocated and freed ~100 MB drops back when it trims,
// where the same process without the trim keeps it all resident. Each in a child of its own.

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { loadMemoryTrim, memoryTrimText } from "../../adapters/malloc/memory-trim.js";

const COMPILED = new URL("../../dist/adapters/malloc/memory-trim.js", import.meta.url).href;

/** VmRSS (MB) of a child after four threads each malloc'd and freed 40,000 small buffers, then after trimming or not. */
function afterThreads(trim: boolean): { threads: number; after: number; released: boolean | null } {
  const script = `
    const { loadMemoryTrim } = await import(${JSON.stringify(COMPILED)});
    const { readFileSync } = await import("node:fs");
    const { Worker } = await import("node:worker_threads");
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const body = "const k = []; for (let i = 0; i < 40000; i++) k.push(Buffer.allocUnsafeSlow(512)); k.length = 0;";
    await Promise.all(Array.from({ length: 4 }, () => new Promise((r) => new Worker(body, { eval: true }).on("exit", r))));
    const threads = rss();
    const released = ${trim} ? loadMemoryTrim().trim() : null;
    process.stdout.write(JSON.stringify({ threads, after: rss(), released }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { threads: number; after: number; released: boolean | null };
}

describe("memory trim", () => {
  it("is glibc's malloc_trim here (npm ci builds native/malloc)", () => {
    // Not skipped when the module is missing: this project's install builds it, and a missing build is what this catches.
    const t = loadMemoryTrim();
    expect({ backend: t.backend, fallback: t.fallback }).toEqual({ backend: "malloc_trim", fallback: undefined });
    expect(memoryTrimText(t)).toBe("malloc_trim");
  });

  it("hands back what the threads freed; without it, it stays resident", () => {
    const trimmed = afterThreads(true);
    expect(trimmed.released).toBe(true);
    expect(trimmed.after).toBeLessThan(trimmed.threads - 50);
    const kept = afterThreads(false);
    expect(kept.threads).toBeGreaterThan(100);
    expect(kept.after).toBeGreaterThan(kept.threads - 10);
  });

  it("says why there is none when the module is missing", () => {
    expect(memoryTrimText({ backend: null, fallback: "native/malloc was not built at install", trim: () => false }))
      .toBe("none (freed memory stays resident: native/malloc was not built at install)");
  });
});
