// A message that sets an agent to work is not held behind a flood of other events: arriving
// after 1,500 events for 150 other conversations, all delivered live at once, its signature is
// checked ahead of the flood queued for the verifier's workers, and its run starts while most of
// the flood is still being checked and stored (asserted by order, not by time).
// The flood loses nothing (that nothing acts before it is durable is durable-before-ack.test.ts).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KeySigner } from "../../adapters/nostr/key-signer.js";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import type { LogRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";
import { openRoute } from "../helpers/route-fixture.js";

const dirs: string[] = [];
let verifier: OnDemandVerifier | undefined;
afterEach(async () => {
  await verifier?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the route's priority lane", () => {
  it("starts a trigger's run before a flood of other conversations' events delivered ahead of it is stored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-priority-"));
    dirs.push(dir);
    const p = testProject();
    const planner = p.info.agents.find((a) => a.slug === "planner")!;
    const runnable = new Map([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    // The pool starts as in a burst (a live flood of 2,000 ev/s does the same in the daemon).
    verifier = new OnDemandVerifier({ burstPerSecond: 50 });
    const pool = verifier;
    const verified: string[] = [];
    const check = (ev: NostrEvent, urgent?: boolean) => pool.check(ev, urgent).then((v) => (verified.push(ev.id), v));
    const d = await openRoute(dir, p.info, { concurrentConversations: 4, verifier: { check }, runnable });
    // Natively signed: nostr-tools takes 3-11 ms a signature here.
    const owner = new KeySigner(p.owner.sk);
    const now = Math.floor(Date.now() / 1000);
    const flood: NostrEvent[] = [];
    for (let c = 0; c < 150; c++) {
      const root = await owner.sign({ kind: 11, created_at: now, content: `flood ${c}`, tags: [["a", p.coordinate], ["title", `flood ${c}`]] });
      flood.push(root);
      for (let i = 0; i < 9; i++) {
        flood.push(await owner.sign({
          kind: 1111, created_at: now, content: `flood ${c}.${i}`,
          tags: [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id, "", root.pubkey], ["k", "11"], ["a", p.coordinate]],
        }));
      }
    }
    const trigger = await owner.sign({ kind: 11, created_at: now, content: "planner, please", tags: [["a", p.coordinate], ["title", "please"], ["p", planner.pubkey]] });

    const acked: string[] = [];
    let floodLeftAtRun: number | undefined;
    d.route.connect({
      runs: {
        trigger: (convId, agent, ev) => {
          expect([convId, agent.pubkey, ev.id]).toEqual([trigger.id, planner.pubkey, trigger.id]);
          floodLeftAtRun = flood.length - acked.length;
        },
      },
      outbox: { enqueue: async () => undefined },
      threads: { request: () => undefined },
    });
    const outcomes = flood.map((ev) => d.route.fromRelay(ev, "ws://relay.test", false, false).then((o) => (acked.push(ev.id), o)));
    const triggered = d.route.fromRelay(trigger, "ws://relay.test", false, false);
    expect((await triggered).status).toBe("accepted");
    const all = await Promise.all(outcomes);
    expect(all.filter((o) => o.status !== "accepted")).toEqual([]);
    expect(verifier.stats.poolStarts).toBeGreaterThan(0);
    // Before the priority lane it waited behind the flood in the pool's queue, the conversation
    // queues and the log's next batch: its run started with none (or a last few) of it left.
    // Before the priority lane it was checked after the whole flood queued for the pool (1,500
    // checks ahead of it), then queued for a slot behind the conversations waiting.
    expect(verified.indexOf(trigger.id)).toBeLessThan(flood.length / 2);
    expect(floodLeftAtRun).toBeGreaterThan(flood.length / 2);
    await d.close();
  }, 60_000);

  it("keeps its conversation's order: a trigger checked first still comes after the replies sent before it, past an event refused between them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-priority-"));
    dirs.push(dir);
    const p = testProject();
    const planner = p.info.agents.find((a) => a.slug === "planner")!;
    const runnable = new Map([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    verifier = new OnDemandVerifier({ burstPerSecond: 50 });
    const pool = verifier;
    const verified: string[] = [];
    const check = (ev: NostrEvent, urgent?: boolean) => pool.check(ev, urgent).then((v) => (verified.push(ev.id), v));
    const d = await openRoute(dir, p.info, { concurrentConversations: 4, verifier: { check }, runnable });
    const owner = new KeySigner(p.owner.sk);
    const now = Math.floor(Date.now() / 1000);
    const reply = (root: NostrEvent, content: string, tags: string[][] = []) => owner.sign({
      kind: 1111, created_at: now, content,
      tags: [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id, "", root.pubkey], ["k", "11"], ["a", p.coordinate], ...tags],
    });
    const conv = await owner.sign({ kind: 11, created_at: now, content: "the conversation", tags: [["a", p.coordinate], ["title", "conv"]] });
    const sent: NostrEvent[] = [conv];
    // Other conversations' events first, so that the pool is running when the replies come.
    for (let c = 0; c < 20; c++) {
      const root = await owner.sign({ kind: 11, created_at: now, content: `other ${c}`, tags: [["a", p.coordinate], ["title", `other ${c}`]] });
      sent.push(root);
      for (let i = 0; i < 5; i++) sent.push(await reply(root, `other ${c}.${i}`));
    }
    const before: NostrEvent[] = [];
    for (let i = 0; i < 30; i++) before.push(await reply(conv, `said before the trigger ${i}`));
    sent.push(...before);
    // Refused at the edge, at once (a signature that is no signature), between them and the
    // trigger: its turn ends only once the replies before it have entered.
    const forged = { ...(await reply(conv, "forged")), sig: "00" };
    sent.push(forged);
    const trigger = await reply(conv, "planner, now", [["p", planner.pubkey]]);
    sent.push(trigger);

    const eventIds = (rs: readonly LogRecord[]) => rs.flatMap((r) => (r.t === "event" ? [r.ev.id] : []));
    let runs = 0;
    d.route.connect({
      runs: { trigger: () => void runs++ },
      outbox: { enqueue: async () => undefined },
      threads: { request: () => undefined },
    });
    const outcomes = await Promise.all(sent.map((ev) => d.route.fromRelay(ev, "ws://relay.test", false, false)));
    expect(outcomes.filter((o) => o.status !== "accepted").map((o) => o.status)).toEqual(["rejected"]);
    // The lane did its part: the trigger was checked before replies sent ahead of it.
    expect(verified.indexOf(trigger.id)).toBeLessThan(Math.max(...before.map((ev) => verified.indexOf(ev.id))));
    // Its conversation's log holds them in the order they came, the trigger last (the end of its
    // agent's context).
    expect(eventIds(await d.log.read(conv.id))).toEqual([conv.id, ...before.map((ev) => ev.id), trigger.id]);
    expect(runs).toBe(1);
    await d.close();
  }, 60_000);
});
