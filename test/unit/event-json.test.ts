// Events' JSON serialized beside their check, for the log (adapters/verify/event-json.ts): the text
// must be exactly what the main thread's `JSON.stringify` of the event would write, for every
// event the check passes, including ones shaped to make the two differ; and a log line written
// with it must be the line written without it.

import { describe, expect, it } from "vitest";
import { LineSlab } from "../../adapters/fs-log/line-slab.js";
import { encodeRecords } from "../../adapters/fs-log/record-line.js";
import { jsonAt, packJson, VerifiedEventJson } from "../../adapters/verify/event-json.js";
import { loadNativeCheck, type JsonCheck } from "../../adapters/verify/native-verify.js";
import { readEnvelope } from "../../src/edge/envelope.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign } from "../helpers/events.js";

function nativeJsonCheck(): JsonCheck {
  const native = loadNativeCheck();
  // Not skipped when bcrypto is missing: this project's install builds it (verifier-choice.test.ts).
  if (!("jsonCheck" in native)) throw new Error(native.reason);
  return native.jsonCheck;
}

/** The event as the edge hands it on: its seven fields in the envelope's order. */
function asEdgeMakesIt(ev: NostrEvent): NostrEvent {
  const env = readEnvelope(JSON.parse(JSON.stringify(ev)));
  if (!env.ok) throw new Error(env.detail);
  return env.event;
}

const key = newKey();
const awkward = [
  "plain",
  'quotes " and \\ backslashes, a\nnew line, a\ttab, \u0001 and \u001f',
  "émoji 😀, CJK 漢字, RTL \u202e, U+2028 \u2028 and U+2029 \u2029",
  "a lone surrogate \ud800 and its mate \udc00 apart",
  "",
];

describe("the native check's JSON", () => {
  const check = nativeJsonCheck();

  it("is JSON.stringify's text for events as the edge makes them, whatever their text", () => {
    for (const [i, content] of awkward.entries()) {
      const ev = asEdgeMakesIt(sign(key, 1111, content, [["E", "a".repeat(64)], ["t", content], ["x", "", "\\\""]], i === 0 ? 0 : 1_700_000_000 + i));
      const out = check(ev);
      expect(out.verdict).toBe("ok");
      expect(out.json).toBe(JSON.stringify(ev));
    }
  });

  it("is JSON.stringify's text for other shapes too: another key order, a key more", () => {
    const signed = sign(key, 1, "nostr-tools orders its keys its own way");
    expect(Object.keys(signed)).not.toEqual(Object.keys(asEdgeMakesIt(signed)));
    expect(check(signed).json).toBe(JSON.stringify(signed));
    const extra = { ...asEdgeMakesIt(signed), relays: ["wss://x"] } as NostrEvent;
    expect(check(extra).json).toBe(JSON.stringify(extra));
  });

  it("follows JSON.stringify for a created_at sent as a string, which the id's serialization prints bare", () => {
    // An attacker's event: the id hashes `[0,"pk",1700000000,…]` whether created_at is the number
    // or the string, so the signature holds; JSON quotes the string.
    const ev = asEdgeMakesIt(sign(key, 1, "time as text", [], 1_700_000_000));
    const forged = { ...ev, created_at: "1700000000" } as unknown as NostrEvent;
    const out = check(forged);
    expect(out.verdict).toBe("ok");
    expect(out.json).toBe(JSON.stringify(forged));
    expect(out.json).toContain('"created_at":"1700000000"');
  });

  it("is given for no event that fails its check", () => {
    const ev = asEdgeMakesIt(sign(key, 1, "to be spoiled"));
    expect(check({ ...ev, content: "spoiled" })).toEqual({ verdict: "bad_id" });
    const flipped = (parseInt(ev.sig[0]!, 16) ^ 1).toString(16) + ev.sig.slice(1);
    expect(check({ ...ev, sig: flipped })).toEqual({ verdict: "bad_signature" });
  });
});

describe("packJson / jsonAt / VerifiedEventJson", () => {
  it("packs texts in one buffer and gives each back, none for an empty one", () => {
    const texts = ["{\"a\":\"é😀\"}", "", "{}", ""];
    const { json, ends } = packJson(texts);
    expect(json.buffer.byteLength).toBe(json.byteLength);
    expect(texts.map((_, i) => jsonAt(json, ends, i)).map((b) => (b ? Buffer.from(b).toString() : undefined)))
      .toEqual(["{\"a\":\"é😀\"}", undefined, "{}", undefined]);
  });

  it("gives an event's JSON once, to the same object only", () => {
    const table = new VerifiedEventJson();
    const ev = sign(key, 1, "once");
    table.put(ev, Buffer.from(JSON.stringify(ev)));
    expect(table.take({ ...ev })).toBeUndefined();
    expect(Buffer.from(table.take(ev)!).toString()).toBe(JSON.stringify(ev));
    expect(table.take(ev)).toBeUndefined();
  });
});

describe("a log line with the verifier's JSON", () => {
  const check = nativeJsonCheck();
  const lines = (records: LogRecord[], table?: VerifiedEventJson) => {
    const encoded = encodeRecords(records, table);
    if (typeof encoded === "string") throw new Error(encoded);
    return new LineSlab().encode(encoded.parts).toString();
  };

  it("is the line written without it, for each record of an append", () => {
    const events = awkward.map((c, i) => asEdgeMakesIt(sign(key, 1111, c, [["E", "b".repeat(64)]], 1_700_000_100 + i)));
    const records: LogRecord[] = [
      ...events.map((ev, i) => ({ t: "event", at: 1_700_000_100_000 + i, ev, origin: "relay", n: i + 1 }) as LogRecord),
      { t: "phase", phase: "chat", by: key.pubkey, at: 1, n: events.length + 1 } as unknown as LogRecord,
    ];
    const table = new VerifiedEventJson();
    for (const ev of events) table.put(ev, Buffer.from(check(ev).json!));
    const withJson = lines(records, table);
    expect(withJson).toBe(records.map((r) => JSON.stringify(r)).join("\n"));
    // Each was taken: written again, the events are serialized on the spot, to the same text.
    for (const ev of events) expect(table.take(ev)).toBeUndefined();
    expect(lines(records, table)).toBe(withJson);
  });

  it("is serialized whole when the stand-in for the event shows elsewhere in the record", () => {
    const ev = asEdgeMakesIt(sign(key, 1, "stand-in"));
    // Before the event, so that the first stand-in found would be the wrong one.
    const record = { t: "event", note: "\u0000", at: 5, ev, origin: "relay", n: 1 } as unknown as LogRecord;
    const table = new VerifiedEventJson();
    // Not the event's JSON: if it were written, the line would show it.
    table.put(ev, Buffer.from('{"not":"this"}'));
    expect(lines([record], table)).toBe(JSON.stringify(record));
  });
});
