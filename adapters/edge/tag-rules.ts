// The form of every tag the daemon reads (src/tags.ts, src/coordinate.ts), checked once at the
// edge so the domain's readers can trust what they find. Tags we do not read pass unchecked;
// trailing entries (relay hints, markers, pubkeys) are allowed as Nostr convention has it.

import { z } from "zod";
import { KIND } from "../../src/kinds.js";
import { HEX64, MESSAGE_TYPES, PHASES, PRIORITIES } from "../../src/types.js";

const hex64 = z.string().regex(HEX64, "must be 64 lowercase hex characters");
const digits = z.string().regex(/^\d{1,16}$/, "must be decimal digits");
// NIP-01 address: `<kind>:<pubkey>:<d>`; d may be empty (replaceable, not addressable).
const coordinate = z.string().regex(/^\d{1,5}:[0-9a-f]{64}:/, "must be a coordinate <kind>:<hex64>:<d>");

/** `[name, value, ...anything]` with the value checked. */
const valued = (value: z.ZodType) => z.tuple([z.string(), value], z.string());

const scope = z.union(
  [
    z.tuple([z.string(), z.literal("all")], z.string()),
    z.tuple([z.string(), z.literal("role"), z.string().min(1)], z.string()),
  ],
  { error: 'must be ["scope","all"] or ["scope","role",<role>]' },
);

interface TagRule {
  schema: z.ZodType;
  /** Kinds the rule applies to; every kind when absent. */
  kinds?: readonly number[];
}

// The messaging extensions ride on conversation messages only. A TENEX task (1934) carries its
// own `status` values (pending, done, …), which must not get it refused.
const MESSAGES: readonly number[] = [KIND.CONVERSATION_ROOT, KIND.REPLY];

const RULES: ReadonlyMap<string, TagRule> = new Map<string, TagRule>([
  ["E", { schema: valued(hex64) }],
  ["e", { schema: valued(hex64) }],
  ["P", { schema: valued(hex64) }],
  ["p", { schema: valued(hex64) }],
  ["a", { schema: valued(coordinate) }],
  ["K", { schema: valued(digits) }],
  ["k", { schema: valued(digits) }],
  ["expiration", { schema: valued(digits) }],
  ["phase", { schema: valued(z.enum(PHASES)) }],
  ["priority", { schema: valued(z.enum(PRIORITIES)), kinds: MESSAGES }],
  ["type", { schema: valued(z.enum(MESSAGE_TYPES)), kinds: MESSAGES }],
  ["status", { schema: valued(z.enum(["open", "closed"])), kinds: MESSAGES }],
  ["scope", { schema: scope, kinds: MESSAGES }],
]);

/** Why the first tag that breaks its rule does, or undefined when every read tag is well formed. */
export function tagRuleViolation(kind: number, tags: readonly string[][]): string | undefined {
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    const rule = RULES.get(tag[0]!);
    if (!rule || (rule.kinds && !rule.kinds.includes(kind))) continue;
    const parsed = rule.schema.safeParse(tag);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const why = tag.length < 2 ? "has no value" : (issue?.message ?? "is malformed");
      return `tag ${i} (${tag[0]}): ${why}`;
    }
  }
  return undefined;
}
