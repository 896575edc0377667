// The cheap checks every inbound event passes before anything else looks at it: shape, formats,
// kind, time, sizes, text and the tags we read. Cheapest first, so junk costs little; the id
// hash and the signature come after, in the verifier pool (adapters/verify/).

import { isLowerHex } from "../hex.js";
import { isHex64, type NostrEvent } from "../types.js";
import { readEnvelope, tagsShapeProblem } from "./envelope.js";
import type { RejectReason } from "./reject-reason.js";
import { tagRuleViolation } from "./tag-rules.js";
import { hasLoneSurrogate, hasNul, quote, utf8Bytes } from "./text-checks.js";

export interface Limits {
  /** The serialized event (the JSON object with its seven fields), in UTF-8 bytes. */
  maxEventBytes: number;
  /** `content`, in UTF-8 bytes. */
  maxContentBytes: number;
  maxTags: number;
  /** Any one tag entry (name or value), in UTF-8 bytes. */
  maxTagValueBytes: number;
}

// Generous for LLM output (long code in content) yet far from what a flood needs; relays
// commonly cap events at 64-512 KB.
export const DEFAULT_LIMITS: Limits = {
  maxEventBytes: 512 * 1024,
  maxContentBytes: 256 * 1024,
  maxTags: 2000,
  maxTagValueBytes: 4096,
};

/** Clock skew tolerated for `created_at` (NIP-22 relays commonly allow about this much). */
export const MAX_FUTURE_SECS = 15 * 60;

export type InboundResult =
  | { ok: true; event: NostrEvent }
  | { ok: false; reason: RejectReason; detail: string };

const reject = (reason: RejectReason, detail: string): InboundResult => ({ ok: false, reason, detail });

/**
 * Checks one inbound event (as parsed from the wire). `nowSecs` is the current unix time in
 * seconds (injected, like every clock read). On success `event` is a fresh object holding only
 * the NIP-01 fields.
 */
export function validateInbound(
  raw: unknown, limits: Limits, allowedKinds: readonly number[], nowSecs: number,
): InboundResult {
  const env = readEnvelope(raw);
  if (!env.ok) return reject("malformed", env.detail);
  const e = env.event;

  if (!isHex64(e.id)) return reject("bad_id_format", `id ${quote(e.id)} is not 64 lowercase hex`);
  if (!isHex64(e.pubkey)) return reject("bad_pubkey_format", `pubkey ${quote(e.pubkey)} is not 64 lowercase hex`);
  if (!isLowerHex(e.sig, 128)) return reject("bad_sig_format", `sig ${quote(e.sig)} is not 128 lowercase hex`);
  if (!allowedKinds.includes(e.kind)) return reject("unknown_kind", `kind ${e.kind} is not handled`);
  const timeProblem = createdAtProblem(e.created_at, nowSecs);
  if (timeProblem) return reject("bad_created_at", timeProblem);

  // Counted before the tags are walked, so a 100,000-tag event costs one comparison.
  if (e.tags.length > limits.maxTags) return reject("too_many_tags", `${e.tags.length} tags, limit ${limits.maxTags}`);
  const shape = tagsShapeProblem(e.tags);
  if (shape) return reject("bad_tag_shape", `tags ${shape}`);
  // The tags are copied too: what the sender's object holds can change nothing stored.
  const event: NostrEvent = { ...e, tags: copyTags(e.tags as string[][]) };

  const contentBytes = utf8Bytes(e.content);
  if (contentBytes > limits.maxContentBytes) {
    return reject("content_too_large", `content ${contentBytes} bytes, limit ${limits.maxContentBytes}`);
  }
  const textProblem = tagTextProblem(event.tags, limits.maxTagValueBytes) ?? contentProblem(event.content);
  if (textProblem) return textProblem;
  // Serialized only when it could be too large: a UTF-16 unit takes at most 6 bytes in JSON
  // (a \uXXXX escape), and the fixed fields and punctuation well under 1 KB.
  if (6 * textUnits(event) + 1024 > limits.maxEventBytes) {
    const eventBytes = utf8Bytes(JSON.stringify(event));
    if (eventBytes > limits.maxEventBytes) return reject("too_large", `${eventBytes} bytes, limit ${limits.maxEventBytes}`);
  }

  const tagProblem = tagRuleViolation(e.kind, event.tags);
  if (tagProblem) return reject("bad_tag_shape", tagProblem);
  return { ok: true, event };
}

/**
 * A copy built by pushing, as JSON.parse builds its arrays: `map` would make a holey array, and
 * an event holding one in `tags` where the parsed ones hold packed arrays generalizes the field's
 * type on their shared hidden class, which deoptimizes every optimized function reading events
 * (seen with --trace-deopt: ~20 functions, each compiled again).
 */
function copyTags(tags: readonly string[][]): string[][] {
  const out: string[][] = [];
  for (const t of tags) out.push(t.slice());
  return out;
}

/** UTF-16 units in the content and the tags (entries, plus 4 per entry for quotes and comma). */
function textUnits(ev: NostrEvent): number {
  let units = ev.content.length;
  for (const tag of ev.tags) for (const entry of tag) units += entry.length + 4;
  return units;
}

function createdAtProblem(createdAt: number, nowSecs: number): string | undefined {
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) return `created_at ${createdAt} is not a non-negative integer`;
  if (createdAt > nowSecs + MAX_FUTURE_SECS) return `created_at ${createdAt} is ${createdAt - nowSecs} s in the future`;
  return undefined;
}

function tagTextProblem(tags: readonly string[][], maxBytes: number): InboundResult | undefined {
  for (let i = 0; i < tags.length; i++) {
    for (const entry of tags[i]!) {
      const bytes = utf8Bytes(entry);
      if (bytes > maxBytes) return reject("tag_too_large", `tag ${i} (${quote(tags[i]![0], 20)}) has a ${bytes}-byte entry, limit ${maxBytes}`);
      if (hasNul(entry)) return reject("nul_byte", `tag ${i} contains U+0000`);
      if (hasLoneSurrogate(entry)) return reject("invalid_utf8", `tag ${i} contains a lone surrogate`);
    }
  }
  return undefined;
}

function contentProblem(content: string): InboundResult | undefined {
  if (hasNul(content)) return reject("nul_byte", "content contains U+0000");
  if (hasLoneSurrogate(content)) return reject("invalid_utf8", "content contains a lone surrogate");
  return undefined;
}
