// Snapshots of derived conversation state, so a restart replays only the log after them.
// A snapshot is derived data: one that is missing, unreadable or for another conversation is
// simply not used (the log is replayed from the start), never an error.

import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { nodeFileOps, type FileOps } from "./file-ops.js";
import { assertId } from "./layout.js";

export interface Snapshot {
  /** Log position the state was folded up to. */
  n: number;
  data: unknown;
}

const VERSION = 1;

export class FileSnapshotStore {
  private readonly dir: string;
  private made: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly ops: FileOps = nodeFileOps,
  ) {
    this.dir = join(dataDir, "snapshots");
  }

  /** Replaces the snapshot atomically: a crash leaves the old one or the new one, whole. */
  async writeSnapshot(conversationId: string, n: number, data: unknown): Promise<void> {
    assertId(conversationId);
    await this.ensureDir();
    const path = this.pathOf(conversationId);
    const temp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const fh = await open(temp, "wx", 0o600);
    try {
      await fh.writeFile(JSON.stringify({ v: VERSION, id: conversationId, n, data }));
      await fh.datasync();
    } catch (e) {
      await fh.close();
      await unlink(temp).catch(() => undefined); // the write failed; the temp file is worthless
      throw e;
    }
    await fh.close();
    await rename(temp, path);
    await this.ops.syncDir(this.dir);
  }

  async readSnapshot(conversationId: string): Promise<Snapshot | undefined> {
    assertId(conversationId);
    let text: string;
    try {
      text = await readFile(this.pathOf(conversationId), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    return parseSnapshot(text, conversationId);
  }

  private pathOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private ensureDir(): Promise<void> {
    this.made ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await this.ops.syncDir(this.dataDir);
    })().catch((e: unknown) => {
      this.made = undefined;
      throw e;
    });
    return this.made;
  }
}

function parseSnapshot(text: string, id: string): Snapshot | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const s = value as { v?: unknown; id?: unknown; n?: unknown; data?: unknown } | null;
  if (typeof s !== "object" || s === null || s.v !== VERSION || s.id !== id) return undefined;
  if (typeof s.n !== "number" || !Number.isSafeInteger(s.n) || s.n < 0 || !("data" in s)) return undefined;
  return { n: s.n, data: s.data };
}
