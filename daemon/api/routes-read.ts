// The read endpoints (GET). Each parses its query with zod and answers from the reads the CLI
// also uses when no daemon runs.

import type { Route } from "./router.js";
import { contextQuery, conversationsQuery, inboxQuery, messagesQuery, showQuery } from "./schemas.js";
import type { ApiServices } from "./services.js";

const query = (q: URLSearchParams) => Object.fromEntries(q);

export function readRoutes(s: ApiServices): Route[] {
  const { reads } = s;
  return [
    { method: "GET", path: "/api/v1/status", handler: () => s.status() },
    { method: "GET", path: "/api/v1/stats", handler: () => reads.stats() },
    {
      method: "GET", path: "/api/v1/conversations",
      handler: async (r) => reads.conversations(conversationsQuery.parse(query(r.query))),
    },
    {
      method: "GET", path: "/api/v1/conversations/:id",
      handler: async (r) => reads.conversation(r.params.id!, showQuery.parse(query(r.query))),
    },
    { method: "GET", path: "/api/v1/conversations/:id/messages", handler: async (r) => reads.auditTrail(r.params.id!) },
    { method: "GET", path: "/api/v1/conversations/:id/routing", handler: async (r) => reads.routing(r.params.id!) },
    { method: "GET", path: "/api/v1/messages", handler: async (r) => reads.messages(messagesQuery.parse(query(r.query))) },
    { method: "GET", path: "/api/v1/messages/:id", handler: async (r) => reads.message(r.params.id!) },
    {
      method: "GET", path: "/api/v1/agents/:agent/inbox",
      handler: async (r) => reads.inbox(r.params.agent!, inboxQuery.parse(query(r.query))),
    },
    {
      method: "GET", path: "/api/v1/agents/:agent/context",
      handler: async (r) => {
        const q = contextQuery.parse(query(r.query));
        return reads.context(r.params.agent!, q.conversation, q.trigger);
      },
    },
  ];
}
