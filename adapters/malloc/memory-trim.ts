// The freed memory of the daemon's threads handed back to the system (glibc's malloc_trim,
// native/malloc/malloc.c: why, and what it saves), once the start has settled and after each
// back-fill. The module is optional: without it (it did not build, or this is not glibc)
// nothing is handed back and nothing else changes; `tenexd status` and `tenexd doctor` say which.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

interface Addon {
  /** 1: memory was returned, 0: none to return, -1: not glibc. */
  trim(): number;
}

export interface MemoryTrim {
  /** "malloc_trim", or null with `fallback` saying why there is none. */
  backend: "malloc_trim" | null;
  fallback?: string;
  /** Hands freed memory back to the system; whether there was some. */
  trim(): boolean;
}

// From the sources (adapters/malloc) and from the build (dist/adapters/malloc).
const CANDIDATES = ["../../native/malloc/build/Release/malloc.node", "../../../native/malloc/build/Release/malloc.node"];

const none = (fallback: string): MemoryTrim => ({ backend: null, fallback, trim: () => false });

export function loadMemoryTrim(): MemoryTrim {
  const file = CANDIDATES.map((c) => fileURLToPath(new URL(c, import.meta.url))).find((f) => existsSync(f));
  if (file === undefined) return none("native/malloc was not built at install (see npm ci's output; `npm run build:native` tries again)");
  let addon: Addon;
  try {
    addon = createRequire(import.meta.url)(file) as Addon;
  } catch (err) {
    return none(`native/malloc did not load: ${(err as Error).message}`);
  }
  // A first trim, which also tells whether this is glibc.
  if (addon.trim() < 0) return none("this is not glibc's malloc");
  return { backend: "malloc_trim", trim: () => addon.trim() === 1 };
}

/** One line for doctor and status: the backend, or why there is none. */
export const memoryTrimText = (t: MemoryTrim): string => t.backend ?? `none (freed memory stays resident: ${t.fallback})`;
