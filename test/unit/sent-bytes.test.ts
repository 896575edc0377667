// An event's bytes as its relay sent them (docs/architecture.md, "The event's own bytes"): found
// in the frame (adapters/nostr/event-frame-bytes.ts), taken only when they hold nothing but the
// event (src/edge/sent-bytes.ts), and spliced into its log line (adapters/fs-log/record-line.ts).

import { describe, expect, it } from "vitest";
import { encodeRecords } from "../../adapters/fs-log/record-line.js";
import { eventObjectBytes } from "../../adapters/nostr/event-frame-bytes.js";
import { sentBytesFor } from "../../src/edge/sent-bytes.js";
import { validateInbound } from "../../src/edge/validate-inbound.js";
import { KNOWN_KINDS } from "../../src/kinds.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign } from "../helpers/events.js";

// A plain object, as JSON.parse makes one (nostr-tools marks what it signed with a symbol).
const ev = JSON.parse(JSON.stringify(sign(newKey(), 11, "café / bar", [["title", "t"]]))) as NostrEvent;
const canonical = JSON.stringify(ev);
// Keys in another order, escapes JSON.stringify would not write, spacing.
const unusual = `{ "sig" : "${ev.sig}",\t "content":"caf\\u00e9 \\/ bar", "tags":[ ["title","t"] ], "kind":11, "created_at":${ev.created_at}, "pubkey":"${ev.pubkey}", "id":"${ev.id}" }`;
const bytes = (s: string) => Buffer.from(s);
const frame = (sub: string, object: string, spacing = "") => `[${spacing}"EVENT",${spacing}${JSON.stringify(sub)},${spacing}${object}${spacing}]${spacing}`;
const objectOf = (text: string) => {
  const found = eventObjectBytes(bytes(text), JSON.parse(text) as unknown[]);
  return found && Buffer.from(found).toString();
};

describe("eventObjectBytes", () => {
  it("finds the object whatever the spacing and the sub id hold", () => {
    expect(JSON.parse(unusual)).toEqual(ev);
    for (const sub of ["live", 'a"},{"b', "x\\", "[,]{}"]) {
      for (const spacing of ["", " ", "\n\t "]) expect(objectOf(frame(sub, unusual, spacing))).toBe(unusual);
    }
  });

  it("finds nothing in any other frame", () => {
    for (const text of [
      `["EVENT","s",${canonical},1]`, `["EVENT",1,${canonical}]`, `["EVENT","s",[1]]`, `["EVENT","s",null]`, `["EVENT","s"]`,
      `["EVENTS","s",${canonical}]`, `["NOTICE","s",${canonical}]`, `{"0":"EVENT"}`,
    ]) {
      const msg = JSON.parse(text) as unknown;
      expect(Array.isArray(msg) ? eventObjectBytes(bytes(text), msg) : undefined, text).toBeUndefined();
    }
  });

  it("is a view of the frame, not a copy", () => {
    const buf = bytes(frame("s", canonical));
    const found = eventObjectBytes(buf, JSON.parse(buf.toString()) as unknown[])!;
    expect(found.buffer).toBe(buf.buffer);
  });
});

describe("sentBytesFor", () => {
  const edge = (raw: unknown) => {
    const r = validateInbound(raw, { maxEventBytes: 1 << 20, maxContentBytes: 1 << 19, maxTags: 100, maxTagValueBytes: 4096 }, KNOWN_KINDS, ev.created_at);
    if (!r.ok) throw new Error(r.detail);
    return r.event;
  };
  const usable = (text: string) => {
    const raw = JSON.parse(text) as unknown;
    return sentBytesFor(raw, edge(raw), bytes(text)) !== undefined;
  };

  it("takes the seven fields, in any order and spelling", () => {
    expect(usable(canonical)).toBe(true);
    expect(usable(unusual)).toBe(true);
    // Three UTF-8 bytes a character are within the bound.
    const wide = sign(newKey(), 11, "漢".repeat(5000));
    expect(usable(JSON.stringify(wide))).toBe(true);
  });

  it("refuses bytes that hold more than the event", () => {
    // A field the edge drops would stay in the log.
    expect(usable(JSON.stringify({ ...ev, relay_note: "seen" }))).toBe(false);
    // JSON.parse makes __proto__ an own property: counted as a field like any other.
    expect(usable(`{"__proto__":{"x":1},${canonical.slice(1)}`)).toBe(false);
    // Padding beyond three times the text and 1 KB.
    expect(usable(canonical.replace("{", `{${" ".repeat(3000)}`))).toBe(false);
    expect(usable(canonical.replace("{", `{${" ".repeat(500)}`))).toBe(true);
    // A line break between tokens would cut the log's record in two.
    expect(usable(canonical.replace(",", ",\n"))).toBe(false);
    expect(usable(canonical.replace(",", ",\r"))).toBe(false);
    expect(usable(canonical.replace(",", ",\t"))).toBe(true);
  });

  it("takes nothing when there are no bytes", () => {
    expect(sentBytesFor(ev, ev, undefined)).toBeUndefined();
  });
});

describe("encodeRecords with the sent bytes", () => {
  const record = (n: number): LogRecord => ({ t: "event", at: 5, ev, origin: "relay", n }) as LogRecord;
  const phase = (n: number): LogRecord => ({ t: "phase", at: 6, from: "chat", to: "plan", by: ev.pubkey, message: 'say "ev":0', reason: "", n }) as LogRecord;
  const text = (e: ReturnType<typeof encodeRecords>) => {
    if (typeof e === "string") throw new Error(e);
    return e.bytes.toString();
  };

  it("gives the same bytes as serializing, when the sent bytes are the event's own JSON", () => {
    for (const records of [[record(1)], [phase(1), record(2), phase(3)], [record(1), phase(2)]]) {
      expect(text(encodeRecords(records, { ev, bytes: bytes(canonical) }))).toBe(text(encodeRecords(records)));
    }
  });

  it("writes the sent bytes as they are, and the line parses back to the record", () => {
    const records = [phase(1), record(2), phase(3)];
    const out = text(encodeRecords(records, { ev, bytes: bytes(unusual) }));
    expect(out).toContain(unusual);
    expect(out.split("\n").map((l) => JSON.parse(l) as unknown)).toEqual(records);
  });

  it("leaves records of another event alone", () => {
    const other = sign(newKey(), 11, "other");
    expect(text(encodeRecords([record(1)], { ev: other, bytes: bytes(JSON.stringify(other)) }))).toBe(JSON.stringify(record(1)));
  });
});
