// A request from the project owner: a new conversation (kind 11) signed with the owner's key,
// as the TENEX web client would publish it. For the demo and for owners who work from a terminal;
// it needs `project.owner.keyFile` in config.json (the daemon never holds a key it was not given).

import { buildRoot, checkOutgoingLimits } from "../../../src/agent-events/index.js";
import { DomainError } from "../../../src/errors.js";
import type { ActionDeps } from "./action-deps.js";
import { postResult } from "./posting.js";
import type { PostResult } from "../shapes.js";

export interface AskRequest {
  content: string;
  title?: string;
  /** Agents addressed (slug or pubkey); none = the orchestrator decides. */
  to?: string[];
}

export async function askAsOwner(d: ActionDeps, req: AskRequest): Promise<PostResult> {
  const { owner, config, coordinate } = d.project;
  if (!owner.secretKey) {
    throw new DomainError("the owner's key is not configured: set project.owner.keyFile in config.json to ask as the owner", "no_owner_key");
  }
  const recipients = (req.to ?? []).map((r) => d.reads.agents.resolve(r).pubkey);
  const firstLine = req.content.trim().split("\n")[0] ?? "";
  const unsigned = buildRoot({
    project: coordinate, title: req.title ?? (firstLine.slice(0, 80) || "request"), content: req.content,
    recipients, createdAt: Math.floor(d.reads.now() / 1000),
  });
  checkOutgoingLimits(unsigned, config.limits);
  const ev = await d.commands.publish(owner.pubkey, unsigned);
  return postResult(d, ev, ev.id, true);
}
