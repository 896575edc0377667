// Every inbound event is checked at the edge: one case per reject reason, each a REAL signed
// event then broken, and good events of every contract kind passing.

import { describe, expect, it } from "vitest";
import type { RejectReason } from "../../src/edge/reject-reason.js";
import { validateInbound, type Limits } from "../../src/edge/validate-inbound.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { KNOWN_KINDS } from "../../src/kinds.js";
import type { NostrEvent } from "../../src/types.js";
import { filler, newKey, sign, testProject } from "../helpers/events.js";

const NOW = Math.floor(Date.now() / 1000);
const LIMITS: Limits = { maxEventBytes: 64 * 1024, maxContentBytes: 32 * 1024, maxTags: 500, maxTagValueBytes: 4096 };
const project = testProject();
const agent = project.agents.coder!;
const root = project.root(project.owner, "build the thing", [agent.pubkey]);

const check = (raw: unknown) => validateInbound(raw, LIMITS, KNOWN_KINDS, NOW);
const outcome = (raw: unknown): RejectReason | "ok" => {
  const r = check(raw);
  return r.ok ? "ok" : r.reason;
};
const reply = (tags: string[][] = [], content = "a reply") => project.reply(agent, root, content, [], tags);
/** A real signed reply whose tag `name` was replaced by `tag` before signing. */
const replyWith = (tag: string[]) => sign(agent, 1111, "x", [...reply().tags.filter((t) => t[0] !== tag[0]), tag]);

describe("validateInbound: each reject reason", () => {
  it("malformed: not an object, or fields of the wrong type", () => {
    const ev = reply();
    for (const raw of [null, "event", 42, [], { ...ev, kind: "1111" }, { ...ev, kind: 1.5 }, { ...ev, tags: "p" },
      { ...ev, content: 7 }, { ...ev, created_at: "now" }, { ...ev, sig: undefined }]) {
      expect(outcome(raw)).toBe("malformed");
    }
    const r = check({ ...ev, kind: "1111" });
    expect(!r.ok && r.detail).toMatch(/kind/);
  });

  it("bad_id_format: an id shaped like a path, or in uppercase", () => {
    const ev = reply();
    const r = check({ ...ev, id: "../../etc/passwd" });
    expect(r).toMatchObject({ ok: false, reason: "bad_id_format" });
    expect(!r.ok && r.detail).toContain("../../etc/passwd");
    expect(outcome({ ...ev, id: ev.id.toUpperCase() })).toBe("bad_id_format");
  });

  it("bad_pubkey_format", () => {
    const ev = reply();
    expect(outcome({ ...ev, pubkey: ev.pubkey.slice(2) })).toBe("bad_pubkey_format");
    expect(outcome({ ...ev, pubkey: `npub1${ev.pubkey.slice(5)}` })).toBe("bad_pubkey_format");
  });

  it("bad_sig_format", () => {
    const ev = reply();
    expect(outcome({ ...ev, sig: ev.sig.slice(0, 127) })).toBe("bad_sig_format");
    expect(outcome({ ...ev, sig: ev.sig.toUpperCase() })).toBe("bad_sig_format");
  });

  it("unknown_kind", () => {
    expect(outcome(sign(agent, 1111 + 1, "a kind 1112"))).toBe("unknown_kind");
    expect(outcome(sign(agent, 30023, "an article", [["d", "x"]]))).toBe("unknown_kind");
  });

  it("bad_created_at: far future, negative, fractional; 10 minutes ahead is tolerated", () => {
    expect(outcome(sign(agent, 1111, "from the future", reply().tags, NOW + 86_400))).toBe("bad_created_at");
    expect(outcome({ ...reply(), created_at: -1 })).toBe("bad_created_at");
    expect(outcome({ ...reply(), created_at: NOW + 0.5 })).toBe("bad_created_at");
    expect(outcome(sign(agent, 1111, "a fast clock", reply().tags, NOW + 600))).toBe("ok");
  });

  it("too_many_tags: 10,000 tags", () => {
    const tags = Array.from({ length: 10_000 }, (_, i) => ["t", `tag${i}`]);
    expect(outcome(reply(tags))).toBe("too_many_tags");
  });

  it("bad_tag_shape: tags we read with malformed values, empty tags, non-strings", () => {
    const cases: unknown[] = [
      replyWith(["p", "npub1notahexkey"]),
      replyWith(["p"]),
      replyWith(["a", "31933:not-hex:test-project"]),
      replyWith(["a", "test-project"]),
      replyWith(["E", "../../etc/passwd"]),
      replyWith(["K", "eleven"]),
      replyWith(["expiration", "tomorrow"]),
      replyWith(["phase", "party"]),
      replyWith(["priority", "urgent"]),
      replyWith(["type", "gossip"]),
      replyWith(["status", "maybe"]),
      replyWith(["scope", "role"]),
      replyWith(["scope", "everyone"]),
      reply([[]]),
      { ...reply(), tags: [["p", 5]] },
      { ...reply(), tags: ["p"] },
    ];
    for (const raw of cases) expect(outcome(raw)).toBe("bad_tag_shape");
    const r = check(replyWith(["p", "npub1notahexkey"]));
    expect(!r.ok && r.detail).toMatch(/\(p\).*hex/);
    // The messaging extensions are read on conversation messages only: a task's own status is fine.
    expect(outcome(sign(project.owner, 1934, "a task", [["a", project.coordinate], ["status", "pending"]]))).toBe("ok");
  });

  it("tag_too_large: a 5 KB tag value", () => {
    expect(outcome(reply([["title", "x".repeat(5 * 1024)]]))).toBe("tag_too_large");
  });

  it("tag_too_large: in UTF-8 bytes, one byte over the limit and not at it", () => {
    // 1,365 three-byte characters are 4,095 bytes; one more ASCII byte is 4,096 (the limit).
    expect(outcome(reply([["title", `${"€".repeat(1365)}a`]]))).toBe("ok");
    expect(outcome(reply([["title", `${"€".repeat(1365)}ab`]]))).toBe("tag_too_large");
    expect(outcome(reply([["title", "€".repeat(1366)]]))).toBe("tag_too_large");
  });

  it("content_too_large: counted in UTF-8 bytes", () => {
    expect(outcome(reply([], filler(1, 40 * 1024)))).toBe("content_too_large");
    // 12,000 characters of three bytes each: 36 KB, over the limit though `.length` is not.
    expect(outcome(reply([], "€".repeat(12_000)))).toBe("content_too_large");
  });

  it("too_large: every part within its limit, the whole event over maxEventBytes", () => {
    const tags = Array.from({ length: 20 }, (_, i) => ["summary", `${i}`.padEnd(4000, "z")]);
    const r = check(reply(tags, filler(2, 30 * 1024)));
    expect(r).toMatchObject({ ok: false, reason: "too_large" });
  });

  it("nul_byte: U+0000 in content or a tag", () => {
    expect(outcome(reply([], "before\u0000after"))).toBe("nul_byte");
    expect(outcome(reply([["title", "a\u0000b"]]))).toBe("nul_byte");
  });

  it("invalid_utf8: a lone surrogate in content or a tag; a proper pair is fine", () => {
    expect(outcome(reply([], "broken \ud800 text"))).toBe("invalid_utf8");
    expect(outcome(reply([], "trailing \udc00"))).toBe("invalid_utf8");
    expect(outcome(reply([["title", "x\udbff"]]))).toBe("invalid_utf8");
    expect(outcome(reply([], "an emoji 😀 is a surrogate pair"))).toBe("ok");
  });

  it("bad_id: passes the edge, the verifier finds the id is not the hash", () => {
    const ev: NostrEvent = { ...reply(), content: "edited after signing" };
    expect(outcome(ev)).toBe("ok");
    expect(wasmCheck(ev)).toBe("bad_id");
  });

  it("bad_signature: one flipped signature byte", () => {
    const ev = reply();
    const flipped = (parseInt(ev.sig.slice(10, 12), 16) ^ 0x01).toString(16).padStart(2, "0");
    const bad: NostrEvent = { ...ev, sig: ev.sig.slice(0, 10) + flipped + ev.sig.slice(12) };
    expect(outcome(bad)).toBe("ok");
    expect(wasmCheck(bad)).toBe("bad_signature");
    // Someone else's valid signature does not fit this event either.
    expect(wasmCheck({ ...ev, sig: root.sig })).toBe("bad_signature");
  });
});

describe("validateInbound: good events of every contract kind", () => {
  const orchestrator = project.orchestrator;
  const good: Record<number, NostrEvent> = {
    0: sign(agent, 0, JSON.stringify({ name: "Coder", about: "writes code" })),
    11: project.root(project.owner, filler(3), [agent.pubkey], [["phase", "chat"], ["priority", "high"]]),
    1111: project.reply(agent, root, filler(4), [orchestrator.pubkey], [
      ["tool", "complete"], ["phase", "execute"], ["type", "result"], ["scope", "role", "coder"],
      ["status", "closed"], ["expiration", String(NOW + 3600)], ["claude-session", "sess-1"], ["net-time", "12.5"],
    ]),
    1934: sign(project.owner, 1934, "implement the parser", [
      ["title", "Parser"], ["a", project.coordinate], ["p", agent.pubkey], ["claude-session", "sess-2"],
    ]),
    24010: sign(orchestrator, 24010, "", [["a", project.coordinate], ["agent", agent.pubkey, "coder"]]),
    31933: sign(project.owner, 31933, "a test project", [["d", "test-project"], ["title", "Test"], ["agent", root.id]]),
  };

  it.each(Object.keys(good).map(Number))("kind %i passes the edge and the verifier", (kind) => {
    const ev = good[kind]!;
    const r = check({ ...ev, seenOn: ["wss://relay"], extra: { deep: true } });
    expect(r.ok).toBe(true);
    // Only the NIP-01 fields come through, unchanged.
    expect(r.ok && r.event).toEqual({
      id: ev.id, pubkey: ev.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content, sig: ev.sig,
    });
    expect(wasmCheck(ev)).toBe("ok");
  });

  it("the kinds list decides: a kind not allowed is refused even when known", () => {
    expect(validateInbound(good[0], LIMITS, [11, 1111], NOW)).toMatchObject({ ok: false, reason: "unknown_kind" });
    expect(validateInbound(sign(newKey(), 1, "note"), LIMITS, [1], NOW).ok).toBe(true);
  });
});

describe("validateInbound: what it returns", () => {
  it("a copy: the sender changing its object's tags afterwards changes nothing accepted", () => {
    const sent = JSON.parse(JSON.stringify(reply([["t", "topic"]]))) as NostrEvent;
    const r = check(sent);
    if (!r.ok) throw new Error(r.detail);
    const before = JSON.stringify(r.event.tags);
    sent.tags[0]![1] = "changed";
    sent.tags.push(["p", "0".repeat(64)]);
    expect(JSON.stringify(r.event.tags)).toBe(before);
    expect(r.event.tags).toEqual(JSON.parse(before));
  });
});
