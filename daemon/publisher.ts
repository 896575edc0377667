// Agents publish through here: sign with the agent's key, ingest locally (so the event is in its
// conversation's log, durable, and routed like any other event), then hand it to the outbox.
// A relay that is down delays publication; it never loses a message.

import type { Signer } from "../src/ports.js";
import type { NostrEvent, UnsignedEvent } from "../src/types.js";
import { conversationIdOf } from "../src/conversation-of.js";
import type { IngestPipeline } from "./ingest/pipeline.js";
import type { Outbox } from "./outbox.js";

export class PublishRefusedError extends Error {
  override name = "PublishRefusedError";
  constructor(readonly reason: string, detail: string) {
    super(`event refused before publication: ${reason} (${detail})`);
  }
}

export class Publisher {
  constructor(
    private readonly signers: ReadonlyMap<string, Signer>,
    private readonly pipeline: IngestPipeline,
    private readonly outbox: Outbox,
  ) {}

  async publish(authorPubkey: string, unsigned: UnsignedEvent): Promise<NostrEvent> {
    const signer = this.signers.get(authorPubkey);
    if (!signer) throw new PublishRefusedError("no_key", `no key for ${authorPubkey.slice(0, 12)}…`);
    const ev = await signer.sign(unsigned);
    const outcome = await this.pipeline.ingest(ev, { origin: "local" });
    if (outcome.status === "rejected") throw new PublishRefusedError(outcome.reason, outcome.detail);
    if (outcome.status === "ignored") throw new PublishRefusedError(outcome.reason, "not a conversation event");
    // Not awaited: the event is durable; sending (and retrying) is the outbox's job.
    void this.outbox.enqueue(ev, outcome.status === "accepted" ? outcome.conversationId : conversationIdOf(ev) ?? ev.id);
    return ev;
  }
}
