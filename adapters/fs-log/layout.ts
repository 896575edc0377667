// Where a data directory keeps its conversation logs. Ids are checked here, before any of them
// can become part of a path: a conversation id is an event id, and event ids come off the wire.

import { join } from "node:path";
import { isHex64 } from "../../src/types.js";
import { InvalidIdError } from "./errors.js";

/** `<hex64>.jsonl`: the only names that are conversation logs. */
export const LOG_FILE_NAME = /^([0-9a-f]{64})\.jsonl$/;

export function assertId(id: unknown): asserts id is string {
  if (!isHex64(id)) throw new InvalidIdError(id);
}

export class LogLayout {
  readonly conversations: string;
  readonly archive: string;
  readonly quarantine: string;

  constructor(readonly dataDir: string) {
    this.conversations = join(dataDir, "conversations");
    this.archive = join(this.conversations, "archive");
    this.quarantine = join(dataDir, "quarantine");
  }

  logPath(id: string, archived: boolean): string {
    return join(archived ? this.archive : this.conversations, `${id}.jsonl`);
  }

  dirOf(archived: boolean): string {
    return archived ? this.archive : this.conversations;
  }
}
