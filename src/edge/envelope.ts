// The seven NIP-01 fields and their JSON types, checked by hand: this runs on every inbound
// event, and a schema library's parse cost a back-fill more than the checks that follow it.

import type { NostrEvent } from "../types.js";

export type EnvelopeResult = { ok: true; event: NostrEvent } | { ok: false; detail: string };

const STRING_FIELDS = ["id", "pubkey", "content", "sig"] as const;

/**
 * The event's fields if each has its type, in a fresh object (unknown fields are dropped).
 * `tags` is only known to be an array here: its entries are tagsShapeProblem's to check.
 */
export function readEnvelope(raw: unknown): EnvelopeResult {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, detail: "not a JSON object" };
  const r = raw as Record<string, unknown>;
  for (const field of STRING_FIELDS) {
    if (typeof r[field] !== "string") return { ok: false, detail: `${field}: expected a string, got ${typeName(r[field])}` };
  }
  if (typeof r.created_at !== "number") return { ok: false, detail: `created_at: expected a number, got ${typeName(r.created_at)}` };
  if (!Number.isSafeInteger(r.kind) || (r.kind as number) < 0) return { ok: false, detail: `kind: expected a non-negative integer, got ${describe(r.kind)}` };
  if (!Array.isArray(r.tags)) return { ok: false, detail: `tags: expected an array, got ${typeName(r.tags)}` };
  const event = {
    id: r.id, pubkey: r.pubkey, created_at: r.created_at, kind: r.kind, tags: r.tags, content: r.content, sig: r.sig,
  } as NostrEvent;
  return { ok: true, event };
}

/** The first tag that is not a non-empty array of strings, described; undefined if none. */
export function tagsShapeProblem(tags: readonly unknown[]): string | undefined {
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i];
    if (!Array.isArray(tag)) return `${i}: expected an array, got ${typeName(tag)}`;
    if (tag.length === 0) return `${i}: empty tag`;
    for (let j = 0; j < tag.length; j++) {
      if (typeof tag[j] !== "string") return `${i}.${j}: expected a string, got ${typeName(tag[j])}`;
    }
  }
  return undefined;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  return Array.isArray(v) ? "array" : typeof v;
}

function describe(v: unknown): string {
  return typeof v === "number" ? String(v) : typeName(v);
}
