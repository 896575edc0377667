// Setting damaged lines aside: the log is rewritten without them, atomically, after their bytes
// and the record of the damage are durable in quarantine/. Every intact line is copied byte for
// byte and keeps its `n`, so positions (cursors, read marks) stay what they were, with a gap
// where a damaged line was. A rewrite rather than a skip at every read: each later read, the
// start-up checks and the offline tools then see a log that parses, and the index's record of
// the log's size is true again once it is re-derived (ConversationLog.readWhole's `setAside`).
//
// A crash before the rename leaves the damaged log in place (and a temporary file, reported as a
// stray): the next read sets the lines aside again and records it again. After the rename the
// repaired log is what is left. Nothing intact is ever only in memory. A disk that refuses the
// writes leaves the log as it is: the intact lines are served anyway, and set aside later.

import { rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { WholeLog } from "../../src/ports.js";
import type { FileOps } from "./file-ops.js";
import type { FileTable } from "./file-table.js";
import { scanLines } from "./intact-lines.js";
import type { Quarantine } from "./quarantine.js";
import { readExactly } from "./tail.js";
import type { SetAsideLine } from "../../src/daemon-status.js";

const NEWLINE = Buffer.from("\n");
const SHOWN = 3;

export interface SetAsideDeps {
  files: FileTable;
  ops: FileOps;
  quarantine: Quarantine;
}

/**
 * Reads log `id` whole and sets its damaged lines aside. Runs alone on the files (the writer's
 * exclusive stage), so no append lands between the read and the rename.
 */
export async function setAsideDamaged(d: SetAsideDeps, id: string): Promise<WholeLog> {
  // Opening the file checks its tail: a file in which no line parses is moved aside whole there.
  const file = await d.files.acquire(id, false);
  if (!file) return { records: [], end: { n: 0, bytes: 0 }, setAside: 0 };
  const cutAtOpen = d.files.takeSetAside(file);
  const buf = Buffer.allocUnsafe(file.size);
  try {
    await readExactly((b, off, len, pos) => d.ops.read(file.fd, b, off, len, pos), buf, 0);
  } finally {
    d.files.release(file);
  }
  const scan = scanLines(buf);
  const n = scan.records.at(-1)?.n ?? 0;
  // Repaired meanwhile (another read of the same file got here first).
  if (scan.setAside.length === 0) return { records: scan.records, end: { n, bytes: buf.length }, setAside: cutAtOpen };

  const whole = { records: scan.records, setAside: cutAtOpen + scan.setAside.length };
  const detail = describe(scan.setAside);
  try {
    const bad = Buffer.concat(scan.setAside.flatMap((l) => [buf.subarray(l.offset, l.offset + l.bytes), NEWLINE]));
    const record = await d.quarantine.keepDamaged(id, file.path, bad, scan.setAside, detail);
    const kept = Buffer.concat(scan.keep.map(([start, end]) => buf.subarray(start, end)));
    await rewrite(d, id, file.path, kept);
    d.quarantine.reportDamage(record);
    return { ...whole, end: { n, bytes: kept.length } };
  } catch (e) {
    // The disk refuses (full, read-only): the intact lines are served all the same, the log stays
    // as it is, and the next read tries again.
    const why = e instanceof Error ? e.message : String(e);
    d.quarantine.report({ id, kind: "damaged_lines", detail: `${detail}; not set aside yet (${why}): served without them`, path: file.path });
    return { ...whole, end: { n, bytes: buf.length } };
  }
}

async function rewrite(d: SetAsideDeps, id: string, path: string, kept: Buffer): Promise<void> {
  const temp = `${path}.set-aside-${process.pid}`;
  await rm(temp, { force: true }); // left by a crash of an earlier process with this pid
  const fd = await d.ops.open(temp, true);
  try {
    for (let off = 0; off < kept.length; ) {
      const wrote = await d.ops.write(fd, kept, off, kept.length - off, off);
      if (wrote <= 0) throw new Error(`write returned ${wrote}`);
      off += wrote;
    }
    await d.ops.fdatasync(fd);
  } catch (e) {
    await d.ops.close(fd).catch(() => undefined);
    await rm(temp, { force: true });
    throw e;
  }
  await d.ops.close(fd);
  // The open descriptor is of the damaged file: appends must go to the new one.
  await d.files.drop(id);
  await rename(temp, path);
  await d.ops.syncDir(dirname(path));
}

function describe(lines: readonly SetAsideLine[]): string {
  const some = lines.slice(0, SHOWN).map((l) => `line ${l.line ?? "?"} at byte ${l.offset} (${l.bytes} bytes) ${l.why}`);
  const more = lines.length > SHOWN ? `, and ${lines.length - SHOWN} more` : "";
  return `${lines.length} damaged line${lines.length === 1 ? "" : "s"} set aside: ${some.join("; ")}${more}`;
}
