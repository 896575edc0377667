// What the front desk's actions (posting, messaging, marks, mailbox output, asking as the owner)
// need: the project, the engine's command port (src/ports.ts: every change to a conversation
// goes through its queue and is answered only once durable and indexed), and the reads.

import type { Conversation } from "../../../src/conversation-state.js";
import type { CommandPort } from "../../../src/ports.js";
import type { NewRecord } from "../../../src/records.js";
import type { LoadedProject } from "../../config/index.js";
import type { KeyedMutex } from "./keyed-mutex.js";
import type { ReadContext } from "../reads/read-context.js";

export interface ActionDeps {
  project: LoadedProject;
  commands: CommandPort;
  reads: ReadContext;
  /** Serialises the decisions about one pair of agents' direct conversation. */
  pairs: KeyedMutex;
}

/**
 * Runs `decide` on the conversation in its queue and commits what it returns; resolves once the
 * records are durable and indexed (so what the caller reads next includes them), with whatever
 * `decide` returned beside them.
 */
export async function mutate<T>(
  d: ActionDeps, id: string, decide: (conv: Conversation, now: number) => { records: NewRecord[]; result: T },
): Promise<T> {
  return (await d.commands.inConversation(id, decide)).result;
}
