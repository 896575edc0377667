// The mailbox backend (docs/agent-protocol.md): an agent that runs on its own pulls its context
// for a trigger and posts back the same output object a command agent prints, checked by the
// same rules and acted on the same way: state changes committed, then its event signed and
// published by the daemon.

import { randomUUID } from "node:crypto";
import { buildAgentMessages } from "../../../src/agent-messages.js";
import { checkOutgoingLimits } from "../../../src/agent-events/index.js";
import { decideCursor } from "../../../src/conversation.js";
import { DomainError } from "../../../src/errors.js";
import type { NewRecord } from "../../../src/records.js";
import { outputRulesFor, validateAgentOutput } from "../../../src/agent-output.js";
import { planOutput } from "../../../src/output-plan.js";
import { contextTarget, inputFor } from "../reads/agent-reads.js";
import type { ActionDeps } from "./action-deps.js";
import { postResult } from "./posting.js";
import type { PostResult } from "../shapes.js";

export interface OutputRequest {
  agent: string;
  conversation: string;
  /** The message answered; default: the newest one addressed to the agent. */
  trigger?: string;
  output: unknown;
}

export interface OutputResult {
  conversationId: string;
  trigger: string;
  /** Set when a phase change the output asked for was refused (then nobody was routed). */
  refused: string | null;
  published: PostResult | null;
}

export async function applyOutput(d: ActionDeps, req: OutputRequest): Promise<OutputResult> {
  const t = await contextTarget(d.reads, req.agent, req.conversation, req.trigger);
  const check = validateAgentOutput(req.output, outputRulesFor(inputFor(d.reads, t)));
  if (!check.ok) throw new DomainError(check.message, "bad_output");
  const { agent, trigger } = t;
  const agents = d.project.agents;
  // One task of the conversation's queue: the cursor, what the output decided, then its event.
  const { result: plan, published } = await d.commands.inConversation(t.conversation.id, (conv, now) => {
    const { cursor } = buildAgentMessages(conv, agent, trigger, {
      nameOf: (pk) => d.reads.agents.nameOf(pk), isAgent: (pk) => d.reads.agents.isAgent(pk),
    });
    const planned = planOutput(check.output, {
      conv, agent, trigger, agents, orchestrator: d.project.orchestrator,
      turnTimeoutMs: d.project.config.limits.turnTimeoutSeconds * 1000, netTimeSecs: 0, now, turnId: randomUUID(), dialect: d.project.info.dialect,
    });
    // Checked before anything is committed: a refused event leaves no half-applied output.
    if (planned.event) checkOutgoingLimits(planned.event, d.project.config.limits);
    const records: NewRecord[] = [...decideCursor(conv, cursor, now), ...planned.records];
    return { records, result: planned, ...(planned.event ? { publish: { author: agent.pubkey, event: planned.event } } : {}) };
  });
  return {
    conversationId: t.conversation.id, trigger: trigger.id, refused: plan.refused ?? null,
    published: published ? postResult(d, published, t.conversation.id, false) : null,
  };
}
