// The endpoints that change things (POST): post as an agent, read marks, close and reopen, the
// mailbox agents' output. Each answers once what it did is durable in the log.

import type { Scope } from "../../../src/tags.js";
import { ack, closeConversation, markRead, markViewed, reopenConversation } from "../actions/marks.js";
import { applyOutput } from "../actions/mailbox.js";
import { sendDirect, startDiscussion } from "../actions/messaging.js";
import { reply } from "../actions/posting.js";
import { askAsOwner } from "../actions/ask.js";
import { byField, byParam, type Route } from "./router.js";
import { ackBody, askBody, markBody, outputBody, postMessageBody, replyBody, statusBody, type PostMessageBody } from "./schemas.js";
import type { ApiServices } from "./services.js";

const scopeOf = (s: NonNullable<PostMessageBody["scope"]>): Scope => (s === "all" ? { kind: "all" } : { kind: "role", role: s.role });

export function writeRoutes(s: ApiServices): Route[] {
  const d = s.actions;
  return [
    {
      method: "POST", path: "/api/v1/ask", created: true, ownerOnly: "ask as the owner",
      handler: async (r) => askAsOwner(d, askBody.parse(r.body)),
    },
    {
      method: "POST", path: "/api/v1/messages", created: true, actor: byField("from"),
      handler: async (r) => {
        const b = postMessageBody.parse(r.body);
        const { to, scope, conversation, ...rest } = b;
        if (conversation !== undefined) return reply(d, { ...rest, conversation });
        if (to !== undefined) return sendDirect(d, { ...rest, to });
        return startDiscussion(d, { ...rest, scope: scopeOf(scope!) });
      },
    },
    {
      method: "POST", path: "/api/v1/conversations/:id/messages", created: true, actor: byField("from"),
      handler: async (r) => reply(d, { ...replyBody.parse(r.body), conversation: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/conversations/:id/viewed", actor: byField("agent"),
      handler: async (r) => markViewed(d, { ...markBody.parse(r.body), conversation: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/conversations/:id/read", actor: byField("agent"),
      handler: async (r) => markRead(d, { ...markBody.parse(r.body), conversation: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/conversations/:id/close", ownerOnly: "close conversations",
      handler: async (r) => closeConversation(d, { ...statusBody.parse(r.body), conversation: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/conversations/:id/reopen", ownerOnly: "reopen conversations",
      handler: async (r) => reopenConversation(d, { ...statusBody.parse(r.body), conversation: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/messages/:id/ack", actor: byField("agent"),
      handler: async (r) => ack(d, { ...ackBody.parse(r.body), message: r.params.id! }),
    },
    {
      method: "POST", path: "/api/v1/agents/:agent/output", actor: byParam("agent"),
      handler: async (r) => applyOutput(d, { ...outputBody.parse(r.body), agent: r.params.agent! }),
    },
  ];
}
