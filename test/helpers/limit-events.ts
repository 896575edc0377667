// Events exactly at each of the project's size limits (adapters/edge/validate-inbound.ts Limits),
// and the same one byte over, for the bad-input tests. Sizes are UTF-8 bytes, so the content and
// tag values are made of two-byte characters where that matters: a daemon that counted
// characters would take the over-limit event (1,025 characters of 2,049 bytes) for a small one.

import type { NostrEvent } from "../../src/types.js";
import type { HostileContext } from "./hostile-events.js";

export interface LimitPair {
  limit: "maxContentBytes" | "maxTags" | "maxTagValueBytes" | "maxEventBytes";
  /** Exactly at the limit: must be accepted. */
  at: NostrEvent;
  /** One byte (or one tag) over: refused with `reason`. */
  over: NostrEvent;
  reason: string;
}

const TWO_BYTES = "é";
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
/** What the edge measures for maxEventBytes: the serialized event, its seven NIP-01 fields. */
export const eventBytes = (ev: NostrEvent) =>
  bytes(JSON.stringify({ id: ev.id, pubkey: ev.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content, sig: ev.sig }));

/** One pair per limit; every call with a new `i` gives new ids. Throws if a size is not what it claims. */
export function limitPairs(i: number, ctx: HostileContext): LimitPair[] {
  const { limits } = ctx;
  const base = [["a", ctx.coordinate], ["title", `limits ${i}`]];
  const root = (content: string, tags: string[][]) => ctx.owner(11, content, [...base, ...tags]);
  const tTags = (n: number, value: (k: number) => string) => Array.from({ length: n }, (_, k) => ["t", value(k)]);

  const content = (extra: string) => root(TWO_BYTES.repeat(limits.maxContentBytes / 2) + extra, []);
  const tags = (n: number) => root(`tags ${i}`, tTags(n - base.length, (k) => `${i}-${k}`));
  const tagValue = (extra: string) => root(`tag value ${i}`, [["t", TWO_BYTES.repeat(limits.maxTagValueBytes / 2) + extra]]);
  const pairs: LimitPair[] = [
    { limit: "maxContentBytes", at: content(""), over: content("x"), reason: "content_too_large" },
    { limit: "maxTags", at: tags(limits.maxTags), over: tags(limits.maxTags + 1), reason: "too_many_tags" },
    { limit: "maxTagValueBytes", at: tagValue(""), over: tagValue("x"), reason: "tag_too_large" },
    { limit: "maxEventBytes", ...wholeEvent(i, ctx, base), reason: "too_large" },
  ];
  check(pairs, limits);
  return pairs;
}

// An event of exactly maxEventBytes whose content, tags and tag values are each under their own
// limits, so its only fault one byte over is its total size. Tag values fill most of it; the
// content takes up the rest to the byte (its id and signature have fixed lengths).
function wholeEvent(i: number, ctx: HostileContext, base: string[][]): { at: NostrEvent; over: NostrEvent } {
  const { limits } = ctx;
  const room = limits.maxTags - base.length - 1;
  const content = Math.floor(limits.maxContentBytes / 2);
  const build = (perTag: number, n: number) =>
    ctx.owner(11, "c".repeat(n), [...base, ...Array.from({ length: room }, (_, k) => ["t", `${i}-${k}-`.padEnd(perTag, "v")])]);
  // Tag values long enough that half the content limit tops the event up to its limit.
  const small = 16;
  const perTag = Math.min(limits.maxTagValueBytes - 1, small + Math.floor((limits.maxEventBytes - eventBytes(build(small, content))) / room));
  const make = (n: number) => build(perTag, n);
  const exact = content + limits.maxEventBytes - eventBytes(make(content));
  if (exact < 0 || exact + 1 > limits.maxContentBytes) throw new Error(`cannot build a ${limits.maxEventBytes}-byte event under the other limits (content ${exact})`);
  return { at: make(exact), over: make(exact + 1) };
}

function check(pairs: readonly LimitPair[], limits: HostileContext["limits"]): void {
  const measure: Record<LimitPair["limit"], (ev: NostrEvent) => number> = {
    maxContentBytes: (ev) => bytes(ev.content),
    maxTags: (ev) => ev.tags.length,
    maxTagValueBytes: (ev) => Math.max(...ev.tags.flat().map(bytes)),
    maxEventBytes: eventBytes,
  };
  for (const p of pairs) {
    const [at, over] = [measure[p.limit](p.at), measure[p.limit](p.over)];
    if (at !== limits[p.limit] || over !== limits[p.limit] + 1) throw new Error(`${p.limit}: built ${at} and ${over}, limit ${limits[p.limit]}`);
    // Each event breaks at most the one limit it is about.
    for (const [name, m] of Object.entries(measure)) {
      if (name !== p.limit && (m(p.at) > limits[name as LimitPair["limit"]] || m(p.over) > limits[name as LimitPair["limit"]])) {
        throw new Error(`${p.limit} pair also breaks ${name}`);
      }
    }
  }
}
