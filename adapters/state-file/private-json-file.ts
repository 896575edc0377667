// One small JSON file of daemon state kept across restarts, readable only by the project's owner
// (mode 0600). Replaced atomically: written aside, fsync'd, renamed over the old one and the
// directory fsync'd, so a crash or power loss leaves the old content or the new one, whole.

import { readFileSync } from "node:fs";
import { chmod, open, rename, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { nodeFileOps } from "../fs-log/file-ops.js";

export class PrivateJsonFile {
  private seq = 0;

  constructor(readonly path: string) {}

  /**
   * The stored value, or undefined when there is no file. Read synchronously: it is read once, at
   * start, and is a few hundred bytes. Throws when the file cannot be read or is not JSON.
   */
  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    return JSON.parse(text) as unknown;
  }

  async write(value: unknown): Promise<void> {
    const temp = `${dirname(this.path)}/.${basename(this.path)}.tmp-${process.pid}-${++this.seq}`;
    const fh = await open(temp, "wx", 0o600);
    try {
      await fh.writeFile(`${JSON.stringify(value)}\n`);
      await fh.sync();
      await fh.close();
      // The mode given to open is filtered by the umask; this is not.
      await chmod(temp, 0o600);
      await rename(temp, this.path);
    } catch (e) {
      await fh.close().catch(() => undefined); // already closed, or the write failed
      await unlink(temp).catch(() => undefined); // worthless now; the old file is untouched
      throw e;
    }
    await nodeFileOps.syncDir(dirname(this.path));
  }
}
