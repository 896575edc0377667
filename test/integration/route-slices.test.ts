// A relay's live events routed a slice at a time (InboundRoute.fromRelayMany), as the daemon takes
// in what it read in one turn (relay-sync.ts): one message to the verifier for the slice, and the
// outcomes, counts and order of one event at a time, for the events that must wait on their own
// too (a copy, an urgent one, a conversation to read, an earlier event still on its way), over a
// real log and index.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Verdict } from "../../adapters/verify/verify-protocol.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import type { IngestOutcome } from "../../daemon/engine/ingest/checks.js";
import type { InboundRoute } from "../../daemon/engine/ingest/route.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign, testProject } from "../helpers/events.js";
import { openRoute, type RouteFixtureOptions } from "../helpers/route-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A verifier that notes what it was asked: one event at a time (`singles`) or a slice (`slices`). */
function notingVerifier(answer: (evs: readonly NostrEvent[], call: number) => Promise<Verdict[]> = (evs) => Promise.resolve(evs.map(wasmCheck))) {
  const singles: { id: string; urgent: boolean }[] = [];
  const slices: string[][] = [];
  return {
    singles, slices,
    check: async (ev: NostrEvent, urgent = false) => (singles.push({ id: ev.id, urgent }), wasmCheck(ev)),
    checkMany: (evs: readonly NostrEvent[]) => (slices.push(evs.map((e) => e.id)), answer(evs, slices.length)),
  };
}

async function open(o: RouteFixtureOptions, dir = mkdtempSync(join(tmpdir(), "tenexd-slices-"))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  return { dir, ...(await openRoute(dir, p.info, { concurrentConversations: 4, ...o })) };
}

/** Every event's outcome once the slice has them all; a failed one as `failed`. */
function slice(route: InboundRoute, raws: readonly unknown[]): Promise<(IngestOutcome | { status: "failed"; err: unknown })[]> {
  return new Promise((resolve) => {
    const out: (IngestOutcome | { status: "failed"; err: unknown })[] = [];
    let left = raws.length;
    const one = (i: number, o: IngestOutcome | { status: "failed"; err: unknown }) => {
      out[i] = o;
      if (--left === 0) resolve(out);
    };
    route.fromRelayMany(raws.map((raw) => ({ raw, relay: "wss://r.test", quiet: false })), one, (i, err) => one(i, { status: "failed", err }));
  });
}

const eventIds = async (d: { log: { read(id: string): Promise<{ t: string; ev?: NostrEvent }[]> } }, conv: string) =>
  (await d.log.read(conv)).flatMap((r) => (r.t === "event" ? [r.ev!.id] : []));

const p = testProject();
const planner = p.agents.planner!;

describe("InboundRoute.fromRelayMany", () => {
  it("checks a slice's signatures in one message, and gives each event the outcome it gets alone", async () => {
    const v = notingVerifier();
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const replies = [1, 2, 3].map((i) => p.reply(p.owner, root, `reply ${i}`));
    const forged = { ...p.reply(p.owner, root, "forged"), sig: p.reply(p.owner, root, "other").sig };
    const stranger = p.root(newKey(), "not whitelisted");
    const other = testProject().root(testProject().owner, "another project");
    const outcomes = await slice(d.route, [root, ...replies, forged, root, stranger, other, { junk: true }]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted", "rejected", "duplicate", "rejected", "ignored", "rejected"]);
    expect(outcomes[4]).toMatchObject({ reason: "bad_signature" });
    // One message for the slice; nothing checked alone (the copy waited for its original).
    expect(v.slices).toEqual([[root.id, ...replies.map((r) => r.id), forged.id, stranger.id, other.id]]);
    expect(v.singles).toEqual([]);
    expect(await eventIds(d, root.id)).toEqual([root.id, ...replies.map((r) => r.id)]);
    expect(d.counters.snapshot()).toMatchObject({ accepted: 4, duplicates: 1 });
    await d.close();
  });

  it("an urgent event goes alone (checked inline, its own lane), and its conversation keeps the order events came in", async () => {
    const v = notingVerifier();
    const runnable = new Map([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    const d = await open({ verifier: v, runnable });
    const root = p.root(p.owner, "a root");
    const before = p.reply(p.owner, root, "said first");
    const trigger = p.reply(p.owner, root, "planner, go", [planner.pubkey]);
    const after = p.reply(p.owner, root, "said after");
    const outcomes = await slice(d.route, [root, before, trigger, after]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(v.singles).toEqual([{ id: trigger.id, urgent: true }]);
    expect(v.slices).toEqual([[root.id, before.id, after.id]]);
    expect(await eventIds(d, root.id)).toEqual([root.id, before.id, trigger.id, after.id]);
    await d.close();
  });

  it("stages slices in the order they came, whatever order their verdicts come in", async () => {
    // The first slice's verdicts come 100 ms after the second's.
    const v = notingVerifier(async (evs, call) => {
      if (call === 1) await new Promise((r) => setTimeout(r, 100));
      return evs.map(wasmCheck);
    });
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const [r1, r2, r3] = [1, 2, 3].map((i) => p.reply(p.owner, root, `reply ${i}`));
    const [first, second] = await Promise.all([slice(d.route, [root, r1!]), slice(d.route, [r2!, r3!])]);
    expect([...first, ...second].map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(v.slices).toHaveLength(2);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id]);
    await d.close();
  });

  it("a conversation to read first: its event goes alone, and the slice's later events of it wait for it", async () => {
    const first = await open({});
    const root = p.root(p.owner, "stored earlier");
    const elsewhere = p.root(p.owner, "another conversation");
    expect((await slice(first.route, [root, elsewhere])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await first.close();
    // Restarted with room for one conversation: the second root's fills it.
    const d = await open({ maxCachedBytes: 1 }, first.dir);
    expect((await slice(d.route, [p.reply(p.owner, elsewhere, "warm")]))[0]!.status).toBe("accepted");
    const [r1, r2, r3] = [1, 2, 3].map((i) => p.reply(p.owner, root, `after the restart ${i}`));
    const outcomes = await slice(d.route, [r1, r2, r3]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id]);
    await d.close();
  });

  it("a slice the verifier cannot answer is refused (verify_failed), nothing stored; the next is taken", async () => {
    // It throws at once the first time, fails later the second.
    const v = notingVerifier((evs, call) => {
      if (call === 1) throw new Error("the verifier is closed");
      if (call === 2) return Promise.reject(new Error("every worker died"));
      return Promise.resolve(evs.map(wasmCheck));
    });
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const reply = p.reply(p.owner, root, "a reply");
    for (const why of ["the verifier is closed", "every worker died"]) {
      const refused = await slice(d.route, [root, reply]);
      expect(refused).toMatchObject([{ status: "rejected", reason: "verify_failed", detail: why }, { status: "rejected", reason: "verify_failed", detail: why }]);
    }
    expect(await eventIds(d, root.id)).toEqual([]);
    expect((await slice(d.route, [root, reply])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });

  it("an append that fails fails that conversation's events only; a copy that came meanwhile is stored on its own", async () => {
    const d = await open({});
    const [a, b] = [p.root(p.owner, "conversation a"), p.root(p.owner, "conversation b")];
    const real = d.log.appendWithLines!.bind(d.log);
    let failures = 1;
    d.log.appendWithLines = (id, ...rest) =>
      id === a!.id && failures-- > 0 ? Promise.reject(new Error("ENOSPC: no space left on device")) : real(id, ...rest);
    const outcomes = await slice(d.route, [a, b, a]);
    expect(outcomes.map((o) => o.status)).toEqual(["failed", "accepted", "accepted"]);
    expect(await eventIds(d, a!.id)).toEqual([a!.id]);
    expect(await eventIds(d, b!.id)).toEqual([b!.id]);
    await d.close();
  });

  it("a back-fill's reply met before its root is handed back (deferred); with its root in the slice, placed through it", async () => {
    const d = await open({});
    const root = p.root(p.owner, "the root");
    const untagged = sign(p.owner, 1111, "reply", p.reply(p.owner, root, "reply").tags.filter((t) => t[0] !== "a"));
    const bulk = (raws: unknown[]) => new Promise<IngestOutcome[]>((resolve) => {
      const out: IngestOutcome[] = [];
      d.route.fromRelayMany(raws.map((raw) => ({ raw, relay: "wss://r.test", quiet: true, bulk: true })), (i, o) => {
        out[i] = o;
        if (out.filter(Boolean).length === raws.length) resolve(out);
      }, () => undefined);
    });
    expect(await bulk([untagged])).toMatchObject([{ status: "deferred", eventId: untagged.id }]);
    expect((await bulk([root, untagged])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });

  it("a reply without the project tag in the same slice as its root is placed through it", async () => {
    const d = await open({});
    const root = p.root(p.owner, "the root");
    const untagged = sign(p.owner, 1111, "reply", p.reply(p.owner, root, "reply").tags.filter((t) => t[0] !== "a"));
    expect((await slice(d.route, [root, untagged])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });
});
