// What the logs looked like at a clean stop: how many files and how many bytes. The next start
// trusts the index without checking it only if the logs still look the same; a log damaged,
// truncated or replaced while the daemon was stopped makes it check (and repair) as after a crash.

import { readdirSync, statSync } from "node:fs";
import { join, sep } from "node:path";

export interface LogFingerprint {
  files: number;
  bytes: number;
}

export function logFingerprint(tenexDir: string): LogFingerprint {
  const fp: LogFingerprint = { files: 0, bytes: 0 };
  for (const dir of [join(tenexDir, "conversations"), join(tenexDir, "conversations", "archive")]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue;
      fp.files++;
      // Concatenated, not path.join: at 20,000 logs join's normalising shows in a start's profile.
      fp.bytes += statSync(`${dir}${sep}${name}`).size;
    }
  }
  return fp;
}

export const sameFingerprint = (a: LogFingerprint, b: LogFingerprint): boolean => a.files === b.files && a.bytes === b.bytes;

/** The marker's content; undefined when it is not one this version wrote. */
export function parseMarker(text: string): LogFingerprint | undefined {
  try {
    const v = JSON.parse(text) as Partial<LogFingerprint>;
    return typeof v.files === "number" && typeof v.bytes === "number" ? { files: v.files, bytes: v.bytes } : undefined;
  } catch {
    return undefined;
  }
}
