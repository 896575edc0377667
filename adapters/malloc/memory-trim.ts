// The freed memory of the daemon's threads handed back to the system (glibc's malloc_trim,
// native/malloc/malloc.c: why, and what it saves), once the start has settled and after each
// back-fill. The module is optional: without it (it did not build, or this is not glibc)
// nothing is handed back and nothing else changes; `tenexd status` and `tenexd doctor` say which.

import { loadAddon } from "../native/load-addon.js";

interface Addon {
  /** 1: memory was returned, 0: none to return, -1: not glibc. */
  trim(): number;
  glibc: boolean;
}

export interface MemoryTrim {
  /** "malloc_trim", or null with `fallback` saying why there is none. */
  backend: "malloc_trim" | null;
  fallback?: string;
  /** Hands freed memory back to the system; whether there was some. */
  trim(): boolean;
}

const none = (fallback: string): MemoryTrim => ({ backend: null, fallback, trim: () => false });

export function loadMemoryTrim(): MemoryTrim {
  const addon = loadAddon<Addon>("malloc");
  if ("reason" in addon) return none(addon.reason);
  if (!addon.glibc) return none("this is not glibc's malloc");
  return { backend: "malloc_trim", trim: () => addon.trim() === 1 };
}

/** One line for doctor and status: the backend, or why there is none. */
export const memoryTrimText = (t: MemoryTrim): string => t.backend ?? `none (freed memory stays resident: ${t.fallback})`;
