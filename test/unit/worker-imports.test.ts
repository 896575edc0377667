// What the worker threads load at their start (each worker script and its static imports). The
// verifier's: a pool's worker starts in the middle of a burst, on a busy core, and nostr-tools'
// pure-JS curve code, which the native check does not use, made that start 20 ms of CPU dearer
// (docs/performance.md, session 30); nostr-wasm's check is imported only when it is the one
// chosen. Every worker's: the check that its compiled script is not stale
// (adapters/worker-thread/worker-file.ts) must cover every module of ours it loads, or a stale
// one would go unnoticed.

import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
// Static imports and re-exports that load code: not `import type`, not a dynamic import().
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm;

/** The modules `entry` loads by static import, transitively: ours (root-relative, no extension) and the packages'. */
function staticGraph(entry: string): { ours: Set<string>; packages: Set<string> } {
  const ours = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    const rel = relative(ROOT, file).replace(/\.ts$/, "");
    if (ours.has(rel)) return;
    ours.add(rel);
    for (const [, spec] of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      if (spec!.startsWith(".")) visit(join(dirname(file), spec!.replace(/\.js$/, ".ts")));
      else packages.add(spec!);
    }
  };
  visit(entry);
  return { ours, packages };
}

describe("the verifier's worker thread", () => {
  const graph = staticGraph(join(ROOT, "adapters/verify/verify-worker.ts"));

  it("does not load nostr-tools or nostr-wasm at its start", () => {
    expect([...graph.packages].filter((p) => p.startsWith("nostr-tools") || p.startsWith("nostr-wasm"))).toEqual([]);
    expect(graph.ours).not.toContain("adapters/verify/js-verify");
    expect(graph.ours).not.toContain("adapters/verify/wasm-verify");
  });

});

// Each worker script, and the file whose string literals list the sources its staleness check covers.
const WORKERS = [
  { script: "adapters/verify/verify-worker", listedIn: "adapters/verify/worker-file.ts" },
  { script: "adapters/sqlite-index/index-writer-worker", listedIn: "adapters/sqlite-index/worker-index-writer.ts" },
  { script: "adapters/fs-log/file-ops-worker", listedIn: "adapters/fs-log/thread-file-ops.ts" },
] as const;

describe("each worker thread's staleness check", () => {
  for (const { script, listedIn } of WORKERS) {
    it(`covers every module of ours ${script} loads`, () => {
      const listed = [...readFileSync(join(ROOT, listedIn), "utf8").matchAll(/"([\w./-]+)"/g)].map((m) => m[1]!);
      const { ours } = staticGraph(join(ROOT, `${script}.ts`));
      const missing = [...ours].filter((m) => m !== script && !listed.some((l) => m === l || m.startsWith(`${l}/`)));
      expect(missing).toEqual([]);
    });
  }
});
