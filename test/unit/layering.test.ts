// Enforces the layering (docs/architecture.md, "Layers"): src/ is pure (no I/O, no clock reads,
// no logging, no outer layers); adapters/ never imports daemon/; of the daemon's two wings, the
// front desk (daemon/front-desk/) reaches the engine only through src/ports.ts, never its
// internals (daemon/engine/) nor an adapter, and the engine never imports the front desk.
// Failures list every offending file:line.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

interface Rule {
  /** The layer, as a directory under the root (nested ones too: `daemon/engine`). */
  layer: string;
  /** Directories under the root it may not import from. */
  forbiddenLayers: readonly string[];
  forbiddenModules?: RegExp;
  forbiddenCode?: readonly { pattern: RegExp; label: string; why: string }[];
}

const IO_MODULES = /^(node:)?(fs|fs\/promises|net|child_process|worker_threads|http|https|http2|dgram)$/;

const RULES: readonly Rule[] = [
  {
    layer: "src",
    forbiddenLayers: ["adapters", "daemon"],
    forbiddenModules: IO_MODULES,
    forbiddenCode: [
      { pattern: /\bDate\.now\(/, label: "Date.now()", why: "reads the clock (take `now` as a parameter)" },
      { pattern: /\bnew Date\(/, label: "new Date()", why: "reads the clock (take `now` as a parameter)" },
      { pattern: /\bperformance\.now\(/, label: "performance.now()", why: "reads the clock (take `now` as a parameter)" },
      { pattern: /\bconsole\./, label: "console", why: "logs (the domain returns values; the daemon logs)" },
    ],
  },
  { layer: "adapters", forbiddenLayers: ["daemon"] },
  { layer: "daemon/engine", forbiddenLayers: ["daemon/front-desk"] },
  { layer: "daemon/front-desk", forbiddenLayers: ["adapters", "daemon/engine"] },
];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g;

/** Every violation in `root`, as `file:line: reason`. */
function scanLayers(root: string, rules: readonly Rule[] = RULES): string[] {
  const out: string[] = [];
  for (const rule of rules) {
    for (const file of sourceFiles(join(root, rule.layer))) {
      const rel = relative(root, file);
      readFileSync(file, "utf8").split("\n").forEach((raw, i) => {
        const line = stripComment(raw);
        for (const reason of lineViolations(root, file, line, rule)) out.push(`${rel}:${i + 1}: ${reason}`);
      });
    }
  }
  return out;
}

function lineViolations(root: string, file: string, line: string, rule: Rule): string[] {
  const found: string[] = [];
  for (const m of line.matchAll(SPECIFIER)) {
    const spec = m[1]!;
    if (rule.forbiddenModules?.test(spec)) found.push(`imports ${spec} (I/O belongs in adapters/)`);
    if (spec.startsWith(".")) {
      const target = relative(root, resolve(dirname(file), spec)).split(sep).join("/");
      const layer = rule.forbiddenLayers.find((l) => target === l || target.startsWith(`${l}/`));
      if (layer !== undefined) found.push(`imports ${spec}: ${rule.layer}/ may not import ${layer}/`);
    }
  }
  for (const { pattern, label, why } of rule.forbiddenCode ?? []) if (pattern.test(line)) found.push(`uses ${label}: ${why}`);
  return found;
}

/** Drops whole-line and trailing `//` comments (not `://` inside URLs) and block-comment lines. */
function stripComment(line: string): string {
  const t = line.trimStart();
  if (t.startsWith("//") || t.startsWith("*") || t.startsWith("/*")) return "";
  return line.replace(/(^|\s)\/\/.*$/, "$1");
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sourceFiles(p);
    return /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

describe("layering", () => {
  it("src/ is pure, adapters/ never import daemon/, the front desk never the engine nor an adapter, the engine never the front desk", () => {
    expect(scanLayers(ROOT)).toEqual([]);
  });

  it("the scanner reports each kind of violation with its file:line", () => {
    const root = mkdtempSync(join(tmpdir(), "tenexd-layering-"));
    try {
      const put = (file: string, text: string) => {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      };
      put("src/ok.ts", '// Date.now() in a comment is fine\nconst url = "wss://relay.example"; // console.log too\nexport const x = 1;\n');
      put("src/bad.ts", [
        'import { readFile } from "node:fs/promises";',
        'import type { Logger } from "../daemon/log.js";',
        "export const t = () => Date.now();",
        'import { spawn } from "child_process";',
        "export const d = () => new Date();",
        'console.log("x");',
        'const m = await import("../adapters/x.js");',
      ].join("\n"));
      put("src/deep/also.ts", 'import { x } from "../../adapters/sqlite/index.js";\n');
      put("adapters/a.ts", 'import { ok } from "../src/ok.js";\nimport { run } from "../daemon/run.js";\n');
      put("daemon/d.ts", 'import { readFile } from "node:fs";\nconsole.log(Date.now());\n');
      expect(scanLayers(root)).toEqual([
        "src/bad.ts:1: imports node:fs/promises (I/O belongs in adapters/)",
        "src/bad.ts:2: imports ../daemon/log.js: src/ may not import daemon/",
        "src/bad.ts:3: uses Date.now(): reads the clock (take `now` as a parameter)",
        "src/bad.ts:4: imports child_process (I/O belongs in adapters/)",
        "src/bad.ts:5: uses new Date(): reads the clock (take `now` as a parameter)",
        "src/bad.ts:6: uses console: logs (the domain returns values; the daemon logs)",
        "src/bad.ts:7: imports ../adapters/x.js: src/ may not import adapters/",
        "src/deep/also.ts:1: imports ../../adapters/sqlite/index.js: src/ may not import adapters/",
        "adapters/a.ts:2: imports ../daemon/run.js: adapters/ may not import daemon/",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("the scanner reports a wing reaching into the other", () => {
    const root = mkdtempSync(join(tmpdir(), "tenexd-layering-"));
    try {
      const put = (file: string, text: string) => {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      };
      put("daemon/front-desk/ok.ts", 'import type { ReadPort } from "../../src/ports.js";\nimport { loadProject } from "../config/index.js";\n');
      put("daemon/front-desk/api/bad.ts", [
        'import type { Engine } from "../../engine/engine.js";',
        'import { SqliteIndex } from "../../../adapters/sqlite-index/index.js";',
      ].join("\n"));
      put("daemon/engine/bad.ts", 'import { ApiServer } from "../front-desk/api/server.js";\n');
      put("daemon/run.ts", 'import { Engine } from "./engine/engine.js";\nimport { ApiServer } from "./front-desk/api/server.js";\n');
      expect(scanLayers(root)).toEqual([
        "daemon/engine/bad.ts:1: imports ../front-desk/api/server.js: daemon/engine/ may not import daemon/front-desk/",
        "daemon/front-desk/api/bad.ts:1: imports ../../engine/engine.js: daemon/front-desk/ may not import daemon/engine/",
        "daemon/front-desk/api/bad.ts:2: imports ../../../adapters/sqlite-index/index.js: daemon/front-desk/ may not import adapters/",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
