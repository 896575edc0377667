// The form of every tag the daemon reads (src/tags.ts, src/coordinate.ts), checked once at the
// edge so the domain's readers can trust what they find. Tags we do not read pass unchecked;
// trailing entries (relay hints, markers, pubkeys) are allowed as Nostr convention has it.

import { KIND } from "../kinds.js";
import { isHex64, MESSAGE_TYPES, PHASES, PRIORITIES } from "../types.js";

// Plain predicates rather than schemas: these run on every tag of every inbound event.
/** Why a tag's value is wrong, or undefined when it is right. */
type ValueCheck = (value: string) => string | undefined;

const pattern = (re: RegExp, why: string): ValueCheck => (v) => (re.test(v) ? undefined : why);
const oneOf = (values: readonly string[]): ValueCheck => {
  const allowed = new Set(values);
  const why = `must be one of ${values.map((v) => `"${v}"`).join(", ")}`;
  return (v) => (allowed.has(v) ? undefined : why);
};

const hex64: ValueCheck = (v) => (isHex64(v) ? undefined : "must be 64 lowercase hex characters");
const digits = pattern(/^\d{1,16}$/, "must be decimal digits");
// NIP-01 address: `<kind>:<pubkey>:<d>`; d may be empty (replaceable, not addressable).
const coordinate = pattern(/^\d{1,5}:[0-9a-f]{64}:/, "must be a coordinate <kind>:<hex64>:<d>");

/** `[name, value, ...anything]` with the value checked. */
const valued = (check: ValueCheck) => (tag: readonly string[]) => (tag.length < 2 ? "has no value" : check(tag[1]!));

const scope = (tag: readonly string[]): string | undefined =>
  (tag[1] === "all" || (tag[1] === "role" && (tag[2] ?? "").length > 0)) ? undefined : 'must be ["scope","all"] or ["scope","role",<role>]';

interface TagRule {
  check: (tag: readonly string[]) => string | undefined;
  /** Kinds the rule applies to; every kind when absent. */
  kinds?: readonly number[];
}

// The messaging extensions ride on conversation messages only. A TENEX task (1934) carries its
// own `status` values (pending, done, …), which must not get it refused; today's TENEX marks a
// kind 1 completion `["status","completed"]` (src/tags.ts reads it as one).
const NIP22_MESSAGES: readonly number[] = [KIND.CONVERSATION_ROOT, KIND.REPLY];
const MESSAGES: readonly number[] = [...NIP22_MESSAGES, KIND.TEXT_NOTE];

const RULES: ReadonlyMap<string, TagRule> = new Map<string, TagRule>([
  ["E", { check: valued(hex64) }],
  ["e", { check: valued(hex64) }],
  ["P", { check: valued(hex64) }],
  ["p", { check: valued(hex64) }],
  ["a", { check: valued(coordinate) }],
  ["K", { check: valued(digits) }],
  ["k", { check: valued(digits) }],
  ["expiration", { check: valued(digits) }],
  ["phase", { check: valued(oneOf(PHASES)) }],
  ["priority", { check: valued(oneOf(PRIORITIES)), kinds: MESSAGES }],
  ["type", { check: valued(oneOf(MESSAGE_TYPES)), kinds: MESSAGES }],
  ["status", { check: valued(oneOf(["open", "closed"])), kinds: NIP22_MESSAGES }],
  ["scope", { check: scope, kinds: MESSAGES }],
]);

// Rules that differ for one kind: checked instead of the general rule of the same tag.
const NOTE_RULES: ReadonlyMap<string, TagRule> = new Map<string, TagRule>([
  ["status", { check: valued(oneOf(["open", "closed", "completed"])) }],
]);

/** Why the first tag that breaks its rule does, or undefined when every read tag is well formed. */
export function tagRuleViolation(kind: number, tags: readonly string[][]): string | undefined {
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    const rule = (kind === KIND.TEXT_NOTE ? NOTE_RULES.get(tag[0]!) : undefined) ?? RULES.get(tag[0]!);
    if (!rule || (rule.kinds && !rule.kinds.includes(kind))) continue;
    const why = rule.check(tag);
    if (why) return `tag ${i} (${tag[0]}): ${why}`;
  }
  return undefined;
}
