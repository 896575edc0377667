// The durable record of damage found in the logs: one JSON file per finding in
// `<dataDir>/quarantine/` (mode 0600), next to the bytes that were set aside. The status and
// `tenexd doctor` list the open ones after any number of restarts; an operator clears one
// (`tenexd damage --clear ID`), which marks it cleared and keeps it, with the saved bytes.
// Synchronous: they are small, few, and read by the status and by short CLI commands.

import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { DamageRecord } from "../../src/daemon-status.js";

const RECORD_FILE = /^damage-(.+)\.json$/;
const fileOf = (quarantineDir: string, id: string) => join(quarantineDir, `damage-${id}.json`);

/** Writes a new record durably under a free name (its id may get a `-k` suffix); returns it. */
export function writeDamageRecord(quarantineDir: string, record: DamageRecord): DamageRecord {
  for (let k = 0; ; k++) {
    const id = k === 0 ? record.id : `${record.id}-${k}`;
    let fd: number;
    try {
      fd = openSync(fileOf(quarantineDir, id), "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw e;
    }
    const written = { ...record, id };
    try {
      writeSync(fd, `${JSON.stringify(written, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return written;
  }
}

/** Every record in the data directory, oldest first; with `all`, cleared ones too. */
export function listDamage(dataDir: string, opts: { all?: boolean } = {}): DamageRecord[] {
  const dir = join(dataDir, "quarantine");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const out: DamageRecord[] = [];
  for (const name of names) {
    const id = RECORD_FILE.exec(name)?.[1];
    if (id === undefined) continue;
    const record = readRecord(dir, id);
    if (opts.all || record.clearedAt === undefined) out.push(record);
  }
  return out.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
}

/**
 * Marks records cleared (replaced atomically: temp file, fsync, rename). Returns the ids cleared;
 * an id with no open record is left out.
 */
export function clearDamage(dataDir: string, ids: readonly string[] | "all", now: number): string[] {
  const dir = join(dataDir, "quarantine");
  const open = listDamage(dataDir);
  const wanted = ids === "all" ? open : open.filter((r) => ids.includes(r.id));
  for (const record of wanted) {
    const path = fileOf(dir, record.id);
    // Kept as it is, under a name no longer listed: rewriting it would lose what it holds.
    if (record.unreadable) {
      renameSync(path, `${path}.cleared-${now}`);
      continue;
    }
    const temp = `${path}.tmp-${process.pid}`;
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ ...record, clearedAt: now }, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }
  if (wanted.length > 0) syncDir(dir);
  return wanted.map((r) => r.id);
}

// A record file that does not parse is itself reported, never skipped in silence.
function readRecord(dir: string, id: string): DamageRecord {
  const path = fileOf(dir, id);
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as DamageRecord;
    if (typeof value === "object" && value !== null && typeof value.conversationId === "string") return { ...value, id };
  } catch {
    // reported below
  }
  return {
    id, kind: "quarantined", conversationId: "", log: "", at: 0, lines: [], savedTo: `quarantine/damage-${id}.json`,
    detail: `the damage record quarantine/damage-${id}.json does not parse: read it, then clear it`, unreadable: true,
  };
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
