// Conversation metadata (kind 513) for TENEX clients, published when a conversation gets its
// title or changes its status (src/metadata-change.ts decides when), signed by the orchestrator
// (a project agent: TENEX accepts 513 only from those). Best effort, straight to the relays
// (signed-broadcast.ts): the next change says it all again.

import { buildConversationMetadata } from "../../../src/agent-events/index.js";
import type { Conversation } from "../../../src/conversation-state.js";
import { metadataChanged } from "../../../src/metadata-change.js";
import type { Clock } from "../../../src/ports.js";
import type { LogRecord } from "../../../src/records.js";
import type { SignedBroadcast } from "./signed-broadcast.js";

export class MetadataPublisher {
  constructor(private readonly out: SignedBroadcast, private readonly coordinate: string, private readonly clock: Clock) {}

  /** Records of `conv` just made durable. */
  durable(conv: Conversation, records: readonly LogRecord[]): void {
    const nowSecs = Math.floor(this.clock.now() / 1000);
    if (!metadataChanged(conv.id, records, nowSecs)) return;
    this.out.send(`513:${conv.id}`, buildConversationMetadata({
      project: this.coordinate, conversationId: conv.id, title: conv.title, statusLabel: conv.status, createdAt: nowSecs,
    }));
  }
}
