// The embedded relay (in-process): accepts, validates, serves and keeps events.

import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filler, newKey, sign } from "../helpers/events.js";
import type { NostrEvent } from "../../src/types.js";
import { verifyCorpus } from "../../bench/verify-corpus.js";
import { publishManyRaw, publishRaw, queryRaw, sendRawFrame, startTestRelay, type TestRelay } from "../helpers/relay.js";

/** The event as it travels (nostr-tools marks its own objects with a symbol the wire drops). */
const wire = (ev: NostrEvent): NostrEvent => JSON.parse(JSON.stringify(ev)) as NostrEvent;

describe("embedded relay", () => {
  let relay: Awaited<ReturnType<typeof startTestRelay>>;
  beforeAll(async () => {
    relay = await startTestRelay();
  });
  afterAll(async () => {
    await relay.close();
    rmSync(dirname(relay.dbPath), { recursive: true, force: true });
  });

  it("listens on loopback only", () => {
    expect(relay.url).toBe(`ws://127.0.0.1:${relay.port}`);
    expect(relay.port).toBeGreaterThan(0);
  });

  it("accepts signed events and serves them back by kind and author", async () => {
    const key = newKey();
    const evs = [sign(key, 11, "root"), sign(key, 1111, filler(1)), sign(key, 1111, filler(2))];
    for (const ev of evs) expect(await publishRaw(relay.url, ev)).toEqual({ accepted: true, message: "" });

    const replies = await queryRaw(relay.url, { kinds: [1111], authors: [key.pubkey] });
    expect(replies.map((e) => e.id).sort()).toEqual([evs[1]!.id, evs[2]!.id].sort());
    expect(replies.find((e) => e.id === evs[1]!.id)).toEqual(wire(evs[1]!));
  });

  it("answers a duplicate with OK true", async () => {
    const ev = sign(newKey(), 1111, "twice");
    expect((await publishRaw(relay.url, ev)).accepted).toBe(true);
    const again = await publishRaw(relay.url, ev);
    expect(again.accepted).toBe(true);
    expect(again.message).toMatch(/duplicate/);
  });

  it("refuses a bad signature and a tampered body", async () => {
    const key = newKey();
    const good = sign(key, 1111, "original");
    const badSig = { ...sign(key, 1111, "forged"), sig: good.sig };
    const tampered = { ...sign(key, 1111, "before"), content: "after" };

    const r1 = await publishRaw(relay.url, badSig);
    expect(r1.accepted).toBe(false);
    expect(r1.message).toMatch(/^invalid/);
    expect((await publishRaw(relay.url, tampered)).accepted).toBe(false);
    expect(await queryRaw(relay.url, { authors: [key.pubkey] })).toEqual([]);
  });

  it("checks ids and signatures with the daemon's verifier, refusing every hostile class the library's schema lets through", async () => {
    expect(relay.stats().verifier).toBe("bcrypto-native");
    const corpus = await verifyCorpus(400, 40);
    // Lengths and non-hex are the library's schema's to refuse; the rest reach the verifier.
    // Hostile first: the library answers an id it stores with "duplicate" before any check.
    const reaching = corpus.filter((c) => !/short|long|uppercase|non_hex/.test(c.cls)).filter((_, i) => i % 4 === 0)
      .sort((a, b) => Number(a.expect === "ok") - Number(b.expect === "ok"));
    expect(new Set(reaching.map((c) => c.cls)).size).toBeGreaterThan(10);
    const answers: { accepted: boolean; message: string }[] = [];
    for (const c of reaching) answers.push(await publishRaw(relay.url, c.ev));
    const wrong = reaching.filter((c, i) => answers[i]!.accepted !== (c.expect === "ok")
      || (c.expect !== "ok" && !/^invalid: (id|signature) is wrong/.test(answers[i]!.message)));
    expect(wrong.map((c) => `${c.cls}: ${JSON.stringify(answers[reaching.indexOf(c)])}`)).toEqual([]);
  });

  it("answers a garbage frame with a NOTICE and keeps serving", async () => {
    const replies = await sendRawFrame(relay.url, "this is not json [");
    expect(replies.length).toBeGreaterThan(0);
    expect(JSON.parse(replies[0]!)[0]).toBe("NOTICE");
    const ev = sign(newKey(), 1, "still alive");
    expect((await publishRaw(relay.url, ev)).accepted).toBe(true);
  });

  it("returns at most 100 stored events to a REQ without a limit", async () => {
    const key = newKey();
    const base = Math.floor(Date.now() / 1000) - 1000;
    const evs = Array.from({ length: 105 }, (_, i) => sign(key, 1111, `n${i}`, [], base + i));
    expect(await publishManyRaw(relay.url, evs)).toHaveLength(105);
    expect(await queryRaw(relay.url, { authors: [key.pubkey] })).toHaveLength(100);
    expect(await queryRaw(relay.url, { authors: [key.pubkey], limit: 500 })).toHaveLength(105);
  });
});

describe("embedded relay persistence", () => {
  it("keeps its events across close and reopen on the same database", async () => {
    const first = await startTestRelay();
    const key = newKey();
    const ev = sign(key, 11, "survives a restart");
    try {
      expect((await publishRaw(first.url, ev)).accepted).toBe(true);
    } finally {
      await first.close();
    }
    await first.close(); // idempotent

    const second = await startTestRelay({ dbPath: first.dbPath });
    try {
      expect(await queryRaw(second.url, { authors: [key.pubkey] })).toEqual([wire(ev)]);
    } finally {
      await second.close();
      rmSync(dirname(first.dbPath), { recursive: true, force: true });
    }
  });
});
