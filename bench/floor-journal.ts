// Group commit as the floor hosts do it (trigger-floor-host.ts, ingest-floor-host.ts): the least
// a host must do to make lines durable. Lines wait for the next flush; a flush writes each file
// it touched once and fdatasyncs it (and syncs the directory once if it created files); what
// arrives during a flush goes in the next. With `perConversation` false every line goes to one journal
// file at `path`; else `path` is a directory with a file per conversation, as tenexd's log.

import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { isHex64, type NostrEvent } from "../src/types.js";

// "" is the journal's key when there is one file.
const JOURNAL = "";

/** Told of each flush: as it starts writing its lines, and once they are durable (before their `then`s). */
export interface FlushHooks {
  writing(): void;
  durable(): void;
}

export class FloorJournal {
  private lines = new Map<string, string[]>();
  private after: (() => void)[] = [];
  private starting: (() => void)[] = [];
  private flushing = false;
  /** The flush under way or the last one. */
  private flushed: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly files = new Map<string, FileHandle>();

  private constructor(private readonly path: string, private readonly perConversation: boolean, private readonly hooks?: FlushHooks) {}

  /** The one journal file is opened here, before the first line, as a host would at its start. */
  static async open(path: string, perConversation: boolean, hooks?: FlushHooks): Promise<FloorJournal> {
    const journal = new FloorJournal(path, perConversation, hooks);
    if (!perConversation) journal.files.set(JOURNAL, await open(path, "a"));
    return journal;
  }

  /** Queues `line` for `file`'s next flush; `writing` runs as that flush starts, `then` once it is durable. */
  append(file: string, line: string, then?: () => void, writing?: () => void): void {
    if (this.stopping) return;
    const key = this.perConversation ? file : JOURNAL;
    const list = this.lines.get(key);
    if (list) list.push(line);
    else this.lines.set(key, [line]);
    if (then) this.after.push(then);
    if (writing) this.starting.push(writing);
    if (!this.flushing) this.flushed = this.flush();
  }

  /** Stops taking lines; the files are closed once the flush under way is done (closed under it, its writes fail with EBADF). */
  async close(): Promise<void> {
    this.stopping = true;
    await this.flushed.catch(() => undefined);
    await Promise.all([...this.files.values()].map((h) => h.close()));
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.lines.size > 0) {
      const batch = this.lines;
      const done = this.after;
      const starting = this.starting;
      this.lines = new Map();
      this.after = [];
      this.starting = [];
      for (const f of starting) f();
      this.hooks?.writing();
      // The flush's new files are created first; their directory is then synced once, beside the
      // files' own syncs (as tenexd's log does): one sync for the 200 files a burst of new
      // conversations creates, not one each.
      const fresh = await Promise.all([...batch.keys()].map((file) => this.opened(file)));
      await Promise.all([
        ...(fresh.includes(true) ? [this.syncDir()] : []),
        ...[...batch].map(([file, list]) => this.writeDurably(file, list.join(""))),
      ]);
      this.hooks?.durable();
      for (const f of done) f();
    }
    this.flushing = false;
  }

  /** Opens `file` if it is not open yet; true if that created it (its directory entry is not durable yet). */
  private async opened(file: string): Promise<boolean> {
    if (this.files.has(file)) return false;
    this.files.set(file, await open(this.perConversation ? join(this.path, `${file}.jsonl`) : this.path, "a"));
    return this.perConversation;
  }

  private async writeDurably(file: string, text: string): Promise<void> {
    const handle = this.files.get(file)!;
    await handle.write(text);
    await handle.datasync();
  }

  private async syncDir(): Promise<void> {
    const d = await open(this.path, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }
}

/** An event's file: its root's id (an `E` tag, the id a signature covers only when it is 64 hex digits), else its own. */
export function conversationFile(ev: NostrEvent): string {
  const root = ev.tags.find((t) => t[0] === "E")?.[1];
  return isHex64(root) ? root : ev.id;
}
