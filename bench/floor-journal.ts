// Group commit as the floor hosts do it (trigger-floor-host.ts, ingest-floor-host.ts): the least
// a host must do to make lines durable. Lines wait for the next flush; a flush writes each file
// it touched once and fdatasyncs it (and, for a new file, syncs its directory); what arrives
// during a flush goes in the next. With `perConversation` false every line goes to one journal
// file at `path`; else `path` is a directory with a file per conversation, as tenexd's log.

import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { isHex64, type NostrEvent } from "../src/types.js";

// "" is the journal's key when there is one file.
const JOURNAL = "";

export class FloorJournal {
  private lines = new Map<string, string[]>();
  private after: (() => void)[] = [];
  private flushing = false;
  /** The flush under way or the last one. */
  private flushed: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly files = new Map<string, FileHandle>();

  private constructor(private readonly path: string, private readonly perConversation: boolean) {}

  /** The one journal file is opened here, before the first line, as a host would at its start. */
  static async open(path: string, perConversation: boolean): Promise<FloorJournal> {
    const journal = new FloorJournal(path, perConversation);
    if (!perConversation) journal.files.set(JOURNAL, await open(path, "a"));
    return journal;
  }

  /** Queues `line` for `file`'s next flush; `then` runs once it is durable. */
  append(file: string, line: string, then?: () => void): void {
    if (this.stopping) return;
    const key = this.perConversation ? file : JOURNAL;
    const list = this.lines.get(key);
    if (list) list.push(line);
    else this.lines.set(key, [line]);
    if (then) this.after.push(then);
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
      this.lines = new Map();
      this.after = [];
      await Promise.all([...batch].map(([file, list]) => this.writeDurably(file, list.join(""))));
      for (const f of done) f();
    }
    this.flushing = false;
  }

  private async writeDurably(file: string, text: string): Promise<void> {
    let handle = this.files.get(file);
    const created = !handle && this.perConversation;
    if (!handle) {
      handle = await open(this.perConversation ? join(this.path, `${file}.jsonl`) : this.path, "a");
      this.files.set(file, handle);
    }
    await handle.write(text);
    await handle.datasync();
    if (created) {
      const d = await open(this.path, "r");
      await d.sync();
      await d.close();
    }
  }
}

/** An event's file: its root's id (an `E` tag, the id a signature covers only when it is 64 hex digits), else its own. */
export function conversationFile(ev: NostrEvent): string {
  const root = ev.tags.find((t) => t[0] === "E")?.[1];
  return isHex64(root) ? root : ev.id;
}
