// The engine's two ports (src/ports.ts), for the front desk: the reads (the index on a read-only
// connection of its own, beside the engine's writer: WAL lets them go on together; the
// conversations from the engine's store) with the status, and the commands, each answered once
// what it did is durable and indexed.

import { listDamage } from "../../adapters/fs-log/damage-records.js";
import { openIndexReader } from "../../adapters/sqlite-index/open-index-reader.js";
import type { CommandPort, LiveReadPort } from "../../src/ports.js";
import type { AgentRunner } from "./agents/agent-runner.js";
import type { InboundRoute } from "./ingest/route.js";
import { directorStatus, type EngineState } from "./status.js";
import type { ConversationStore } from "./store/conversation-store.js";

export function engineReads(d: EngineState): LiveReadPort {
  const index = openIndexReader(d.index.path);
  return {
    index,
    load: (id) => d.store.get(id),
    indexed: () => d.store.indexed(),
    now: () => d.clock.now(),
    entities: d.entities,
    damage: () => listDamage(d.project.tenexDir),
    status: () => directorStatus(d),
    changes: (listener) => d.feed.listen(listener),
    close: () => index.close(),
  };
}

export function engineCommands(route: InboundRoute, store: ConversationStore, runner: AgentRunner): CommandPort {
  return {
    // The index is awaited outside the conversation's queue: the feeder applies in batches and
    // must not wait on this conversation's next task.
    async inConversation(id, decide) {
      try {
        return await route.inConversation(id, decide);
      } finally {
        await store.indexed();
      }
    },
    async publish(author, event) {
      const ev = await route.publish(author, event);
      await store.indexed();
      return ev;
    },
    // The run's record (outcome stopped) is written by the runner once its program is gone.
    stopRun: async (agent, by, conversationId) => runner.stop(agent, { by }, conversationId),
  };
}
