// What the operations that change things need from the running daemon. Every change to a
// conversation goes through its queue and the store's commit, and is answered only once durable.

import type { ContextCache } from "../../src/agent-view.js";
import type { Conversation } from "../../src/conversation-state.js";
import type { Clock } from "../../src/ports.js";
import type { NewRecord } from "../../src/records.js";
import type { LoadedProject } from "../config/index.js";
import type { ConversationQueues } from "../ingest/conversation-queues.js";
import type { InboundRoute } from "../ingest/route.js";
import type { ConversationStore } from "../store/conversation-store.js";
import type { KeyedMutex } from "./keyed-mutex.js";
import type { ReadContext } from "./read-context.js";

export interface LiveDeps {
  project: LoadedProject;
  store: ConversationStore;
  queues: ConversationQueues;
  route: InboundRoute;
  clock: Clock;
  cache: ContextCache;
  reads: ReadContext;
  /** Serialises the decisions about one pair of agents' direct conversation. */
  pairs: KeyedMutex;
}

/**
 * Runs `decide` on the conversation in its queue and commits what it returns; resolves once
 * the records are durable and indexed (so what the caller reads next includes them), with
 * whatever `decide` returned beside them. The index is awaited outside the queue: the feeder
 * applies in batches and must not wait on this conversation's next task.
 */
export async function mutate<T>(
  d: LiveDeps, id: string, decide: (conv: Conversation, now: number) => { records: NewRecord[]; result: T },
): Promise<T> {
  const { result } = await d.route.inConversation(id, decide);
  await d.store.indexed();
  return result;
}
