// Request shapes, checked with zod at the edge: query strings (all text, coerced) and JSON
// bodies (strict: an unknown field is an error, so a typo is not silently ignored).

import { z } from "zod";
import { MESSAGE_TYPES, PHASES, PRIORITIES } from "../../../src/types.js";
import { PAGE_DEFAULTS } from "./page-defaults.js";

const text = z.string().trim().min(1, { error: "must not be empty" });
const flag = z.enum(["true", "false", "1", "0"], { error: "must be true or false" }).transform((v) => v === "true" || v === "1");
const page = {
  limit: z.coerce.number().int().min(1, { error: "must be at least 1" }).max(500, { error: "must be at most 500" }).default(PAGE_DEFAULTS.limit),
  offset: z.coerce.number().int().min(0, { error: "must be 0 or more" }).default(PAGE_DEFAULTS.offset),
};
const messageType = z.enum(MESSAGE_TYPES, { error: `must be one of ${MESSAGE_TYPES.join(", ")}` });

export const conversationsQuery = z.strictObject({
  q: z.string().optional(),
  phase: z.enum(PHASES, { error: `must be one of ${PHASES.join(", ")}` }).optional(),
  status: z.enum(["open", "closed", "completed"], { error: "must be open, closed or completed" }).optional(),
  archived: flag.optional(),
  participant: text.optional(),
  includeExpired: flag.optional(),
  ...page,
});

export const messagesQuery = z.strictObject({
  conversation: text.optional(),
  recipient: text.optional(),
  author: text.optional(),
  type: messageType.optional(),
  unread: flag.optional(),
  includeExpired: flag.optional(),
  order: z.enum(["asc", "desc", "priority"], { error: "must be asc, desc or priority" }).optional(),
  ...page,
}).refine((q) => !q.unread || q.recipient !== undefined, { error: "unread needs a recipient", path: ["unread"] });

export const inboxQuery = z.strictObject({ type: messageType.optional(), includeExpired: flag.optional(), ...page });
export const showQuery = z.strictObject({ includeExpired: flag.optional() });
export const contextQuery = z.strictObject({ conversation: text, trigger: text.optional() });

const messaging = {
  priority: z.enum(PRIORITIES, { error: `must be one of ${PRIORITIES.join(", ")}` }).optional(),
  type: messageType.optional(),
  expiresAt: z.number().int().positive({ error: "must be unix seconds" }).optional(),
};
const scope = z.union([
  z.literal("all"),
  z.strictObject({ role: text }),
], { error: 'must be "all" or { "role": "<role>" }' });

/** POST /api/v1/messages: a reply (conversation), a direct message (to) or a discussion (scope). */
export const postMessageBody = z.strictObject({
  from: text,
  content: z.string().min(1, { error: "must not be empty" }),
  conversation: text.optional(),
  parent: text.optional(),
  to: text.optional(),
  scope: scope.optional(),
  title: text.optional(),
  recipients: z.array(text).optional(),
  ...messaging,
}).superRefine((b, ctx) => {
  const targets = [b.conversation, b.to, b.scope].filter((t) => t !== undefined).length;
  if (targets !== 1) {
    ctx.addIssue({ code: "custom", path: [], message: "give exactly one of conversation (a reply), to (a direct message) or scope (a discussion)" });
  }
  if (b.parent !== undefined && b.conversation === undefined) ctx.addIssue({ code: "custom", path: ["parent"], message: "only with conversation" });
  if (b.to !== undefined && b.recipients !== undefined) ctx.addIssue({ code: "custom", path: ["recipients"], message: "not with to (a direct message has one recipient)" });
  if (b.conversation !== undefined && b.title !== undefined) ctx.addIssue({ code: "custom", path: ["title"], message: "not with conversation (a reply has no title)" });
});

/** POST /api/v1/ask: a new conversation from the project owner. */
export const askBody = z.strictObject({
  content: z.string().min(1, { error: "must not be empty" }), title: text.optional(), to: z.array(text).optional(),
});

export const replyBody = z.strictObject({
  from: text, content: z.string().min(1, { error: "must not be empty" }), parent: text.optional(), recipients: z.array(text).optional(), ...messaging,
});

export const markBody = z.strictObject({ agent: text, upTo: z.number().int().min(0).optional() });
export const ackBody = z.strictObject({ agent: text });
export const statusBody = z.strictObject({ by: text.optional(), reason: text.optional() });
export const outputBody = z.strictObject({ conversation: text, trigger: text.optional(), output: z.unknown() });

export type PostMessageBody = z.output<typeof postMessageBody>;
