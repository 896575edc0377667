// How a start finds the project, and the index brought in step with the logs before anything
// else reads it (docs/architecture.md, "Recovery at start"): rebuilt when it is new or was moved
// aside, left as it is after a clean stop that left the logs as they were, else reconciled log
// by log. The clean-stop marker is written at a clean stop and removed at once at the next start.

import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Startup } from "../../../src/daemon-status.js";
import type { RecipientsOf } from "../../../src/messaging/recipients.js";
import type { ConversationLog } from "../../../src/ports.js";
import { PRIVATE_FILE } from "../../../adapters/state-file/private-file.js";
import { reconcileIndex, rebuildIndex, type RebuildableIndex } from "./index-recovery.js";
import { logFingerprint, parseMarker, sameFingerprint } from "./log-fingerprint.js";

const MARKER = "clean-shutdown";

export interface StartCheck {
  tenexDir: string;
  log: ConversationLog;
  index: RebuildableIndex;
  /** The index file is new (missing, or moved aside): it must be rebuilt from the logs. */
  fresh: boolean;
  movedAside: boolean;
  /** Keys of the relays' high-water marks, for an index whose marks were lost with it. */
  relayKeys: readonly string[];
  recipientsOf: RecipientsOf;
}

export async function checkIndexAtStart(c: StartCheck): Promise<Startup> {
  const marker = join(c.tenexDir, MARKER);
  const stopped = existsSync(marker) ? parseMarker(readFileSync(marker, "utf8")) : undefined;
  // Clean only if the logs still look as they did at the stop (nothing damaged them since).
  const clean = stopped !== undefined && sameFingerprint(stopped, logFingerprint(c.tenexDir));
  // The marker is removed at once: a crash from here on leaves no claim of a clean stop.
  if (existsSync(marker)) unlinkSync(marker);
  if (!c.fresh) {
    return clean ? { cleanStart: true } : { cleanStart: false, reconcile: await reconcileIndex(c.log, c.index, { recipientsOf: c.recipientsOf }) };
  }
  const rebuilt = await rebuildIndex(c.log, c.index, { recipientsOf: c.recipientsOf });
  // A new project: no index, no log, never stopped. Nothing was rebuilt and nothing was
  // unclean; saying so would look like a fault on the very first start.
  if (stopped === undefined && !c.movedAside && rebuilt.conversations === 0 && rebuilt.unreadable.length === 0) {
    return { cleanStart: true, firstStart: true };
  }
  // A lost index lost its high-water marks too: resume from the newest event the logs hold
  // (catch-up subtracts the overlap), so what was missed meanwhile still sets agents to work.
  if (rebuilt.newestRelayEvent !== undefined && c.index.highWaterMarks().size === 0) {
    for (const relay of c.relayKeys) c.index.setHighWater(relay, rebuilt.newestRelayEvent);
  }
  return { cleanStart: false, rebuilt: true };
}

/** At a clean stop: lets the next start skip reconciling the index with the logs while they stay as they are. */
export function markCleanStop(tenexDir: string, now: number): void {
  writeFileSync(join(tenexDir, MARKER), `${JSON.stringify({ at: now, ...logFingerprint(tenexDir) })}\n`, { mode: PRIVATE_FILE });
}
