// The read endpoints (GET). Each parses its query with zod and answers from the reads the CLI
// also uses when no daemon runs.

import { byParam, withQuery, type Route } from "./router.js";
import { contextQuery, conversationsQuery, inboxQuery, messagesQuery, showQuery } from "./schemas.js";
import type { ApiServices } from "./services.js";

export function readRoutes(s: ApiServices): Route[] {
  const { reads } = s;
  return [
    { method: "GET", path: "/api/v1/status", handler: () => s.status(), ownerOnly: "read the daemon's status" },
    { method: "GET", path: "/api/v1/stats", handler: () => reads.stats() },
    withQuery("GET", "/api/v1/conversations", conversationsQuery, async (q) => reads.conversations(q)),
    withQuery("GET", "/api/v1/conversations/:id", showQuery, async (q, r) => reads.conversation(r.params.id!, q)),
    { method: "GET", path: "/api/v1/conversations/:id/messages", handler: async (r) => reads.auditTrail(r.params.id!) },
    { method: "GET", path: "/api/v1/conversations/:id/routing", handler: async (r) => reads.routing(r.params.id!) },
    withQuery("GET", "/api/v1/messages", messagesQuery, async (q) => reads.messages(q)),
    { method: "GET", path: "/api/v1/messages/:id", handler: async (r) => reads.message(r.params.id!) },
    withQuery("GET", "/api/v1/agents/:agent/inbox", inboxQuery, async (q, r) => reads.inbox(r.params.agent!, q), { actor: byParam("agent") }),
    withQuery("GET", "/api/v1/agents/:agent/context", contextQuery,
      async (q, r) => reads.context(r.params.agent!, q.conversation, q.trigger), { actor: byParam("agent") }),
  ];
}
