// Who is asking (the owner's token, or a mailbox agent's) and whether a route lets them: the
// rule is src/api-access.ts; here the tokens are matched and the request's agent is resolved.

import { createHash } from "node:crypto";
import { decideAccess, type Need, type Principal } from "../../../src/api-access.js";
import type { AgentDirectory } from "../reads/agent-directory.js";
import { ApiError } from "./errors.js";
import type { Request, Route } from "./router.js";

// Tokens are looked up by their SHA-256: a map lookup compares digests, which tell an attacker
// timing nothing about the tokens themselves.
const digest = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

export class Credentials {
  private readonly byDigest = new Map<string, Principal>();

  constructor(ownerToken: string, agentTokens: ReadonlyMap<string, string>, agents: AgentDirectory) {
    this.byDigest.set(digest(ownerToken), { kind: "owner" });
    for (const [slug, token] of agentTokens) {
      this.byDigest.set(digest(token), { kind: "agent", slug, pubkey: agents.resolve(slug).pubkey });
    }
  }

  /** Whose token this is; undefined for a token that is nobody's. */
  principal(presented: string): Principal | undefined {
    return this.byDigest.get(digest(presented));
  }
}

/** Throws 403 when `who` may not make this request. */
export function authorise(route: Route, who: Principal, req: Request, agents: AgentDirectory): void {
  if (who.kind === "owner") return;
  const decision = decideAccess(who, need(route, req, agents));
  if (!decision.ok) throw new ApiError(403, decision.code, decision.message);
}

function need(route: Route, req: Request, agents: AgentDirectory): Need {
  if (route.ownerOnly !== undefined) return { kind: "owner", what: route.ownerOnly };
  if (route.actor === undefined) return { kind: "any" };
  const ref = route.actor(req);
  if (typeof ref !== "string") return { kind: "act_as", pubkey: undefined, label: "nobody" };
  const agent = agents.resolve(ref); // an unknown agent is 400, as the route itself would say
  return { kind: "act_as", pubkey: agent.pubkey, label: agent.slug };
}
