// The escalator's flags across restarts: `.tenex/escalation.json` (see src/messaging/escalation-flags.ts).
//
// Why a state file and not the escalation events in the conversation logs: the logs record when
// the owner was told, but not when the problem cleared (clearing publishes nothing). Restoring
// "flagged" from the latest escalation event would silence a relapse after a restart, and
// recording the clear in the log would need a new record type or a message to the owner for
// every recovery. The flags are derived, disposable state: a missing or unreadable file only
// means a problem still present is escalated once more, as before this file existed.

import { join } from "node:path";
import { PrivateJsonFile } from "../../../adapters/state-file/private-json-file.js";
import {
  noEscalationFlags, parseEscalationFlags, serializeEscalationFlags, type EscalationFlags,
} from "../../../src/messaging/escalation-flags.js";

export const ESCALATION_FILE = "escalation.json";

export interface EscalationState {
  /** The flags stored by the previous run (none when there is no usable file). */
  initial: EscalationFlags;
  /** Replaces the stored flags; resolves once they are durable. */
  save: (flags: EscalationFlags) => Promise<void>;
}

export function escalationState(tenexDir: string, onProblem: (detail: string) => void): EscalationState {
  const file = new PrivateJsonFile(join(tenexDir, ESCALATION_FILE));
  let initial = noEscalationFlags();
  try {
    const raw = file.read();
    if (raw !== undefined) {
      const parsed = parseEscalationFlags(raw);
      if (parsed) initial = parsed;
      else onProblem(`${file.path}: not an escalation state file; starting with no escalations`);
    }
  } catch (e) {
    onProblem(`${file.path}: ${String(e)}; starting with no escalations`);
  }
  return { initial, save: (flags) => file.write(serializeEscalationFlags(flags)) };
}
