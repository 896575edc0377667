// Property: however a conversation's events arrive (live in publication order, a back-fill
// paging newest first, a second relay in any order, copies of the same event), and whichever
// trigger an agent takes its turn on, its context holds every event up to the trigger exactly
// once, never shows an event before one it answers, shows nothing ordered after the trigger,
// and is the same after a restart (the conversation replayed from its log). Seeded, bounded.

import { describe, expect, it } from "vitest";
import { buildAgentMessages } from "../../src/agent-messages.js";
import type { Conversation } from "../../src/conversation-state.js";
import { positionOf } from "../../src/event-order.js";
import { referencesOf } from "../../src/references.js";
import type { NostrEvent } from "../../src/types.js";
import { agent, CAST, daemonReply, directReply, isAgent, nameOf, Scene, T0, webReply, webRoot, type Who } from "./harness.js";

const RUNS = 60;
const AGENTS: Who[] = ["orchestrator", "pm", "dev", "tester"];

/** mulberry32: small, seeded, good enough to shuffle with. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface World {
  events: NostrEvent[];
  arrivals: NostrEvent[];
}

/** A thread of 6-20 events in a few seconds (clocks a second apart either way), and how it arrives. */
function world(rand: () => number): World {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const count = 6 + Math.floor(rand() * 15);
  const root = webRoot("user", "m0 from user: the request", rand() < 0.5 ? [pick(AGENTS)] : [], T0);
  const events: NostrEvent[] = [root];
  for (let i = 1; i < count; i++) {
    // Mostly answering something recent, sometimes something old.
    const parent = rand() < 0.7 ? events[Math.max(0, events.length - 1 - Math.floor(rand() * 3))]! : pick(events);
    const at = parent.created_at + pick([-1, 0, 0, 0, 1, 2]);
    const to = rand() < 0.4 ? [pick(AGENTS)] : [];
    const by: Who = rand() < 0.35 ? "user" : pick(AGENTS);
    const text = `m${i} from ${by}`;
    let ev: NostrEvent;
    if (by === "user") ev = webReply(by, parent, text, to, at);
    else if (rand() < 0.5) ev = daemonReply(by, root, parent, text, { to: to.filter((w) => w !== by), at, complete: rand() < 0.3 });
    else ev = directReply(by, parent, text, { to: to.filter((w) => w !== by), at, ...(rand() < 0.5 ? { trigger: parent } : {}) });
    events.push(ev);
  }
  // Three streams merged at random: live (publication order, some missed), a back-fill (newest
  // first), a second relay (any order, some missing); copies are the daemon's to drop.
  const live = events.filter(() => rand() < 0.8);
  const backfill = [...events].sort((a, b) => b.created_at - a.created_at || rand() - 0.5);
  const other = events.filter(() => rand() < 0.5).sort(() => rand() - 0.5);
  const streams = [live, backfill, other].filter((s) => s.length > 0);
  const arrivals: NostrEvent[] = [];
  while (streams.length > 0) {
    const i = Math.floor(rand() * streams.length);
    arrivals.push(streams[i]!.shift()!);
    if (streams[i]!.length === 0) streams.splice(i, 1);
  }
  return { events, arrivals };
}

const tokens = (text: string) => [...text.matchAll(/\bm(\d+) from\b/g)].map((m) => Number(m[1]));

/** The events a context shows, in the order it shows them (history, the away block's lines, the trigger). */
function shown(messages: readonly { content: string }[]): number[] {
  return messages.flatMap((m) => tokens(m.content));
}

/** What is wrong with a context (nothing: []). */
function problems(conv: Conversation, events: readonly NostrEvent[], trigger: NostrEvent, messages: readonly { content: string }[]): string[] {
  const index = new Map(events.map((e, i) => [e.id, i]));
  const order = conv.events.map((e) => index.get(e.ev.id)!);
  const upTo = positionOf(conv.events, conv.order, conv.eventsById.get(trigger.id)!);
  const expected = order.slice(0, upTo + 1).sort((a, b) => a - b);
  const seq = shown(messages);
  const out: string[] = [];
  // Each event up to the trigger once, nothing after it, the trigger last.
  const got = [...seq].sort((a, b) => a - b);
  if (got.join() !== expected.join()) out.push(`shows ${got.join(",")} instead of ${expected.join(",")}`);
  if (seq.at(-1) !== index.get(trigger.id)) out.push(`ends with m${seq.at(-1)}, not its trigger`);
  // Never an event before one it answers (of those the conversation holds).
  const at = new Map(seq.map((k, i) => [k, i]));
  for (const [i, k] of seq.entries()) {
    for (const ref of referencesOf(events[k]!).ancestors) {
      const r = index.get(ref);
      if (r !== undefined && at.has(r) && at.get(r)! > i) out.push(`shows m${k} before m${r}, which it answers`);
    }
  }
  return out;
}

describe("conformance property: contexts under any arrival order", () => {
  it(`holds for ${RUNS} seeded conversations`, () => {
    let turns = 0;
    const found: string[] = [];
    for (let seed = 1; seed <= RUNS; seed++) {
      const rand = prng(seed);
      const { events, arrivals } = world(rand);
      const scene = new Scene(events[0]!.id);
      const arrived: NostrEvent[] = [];
      for (const ev of arrivals) {
        scene.arrive(ev);
        if (!arrived.includes(ev)) arrived.push(ev);
        if (rand() < 0.35) {
          const who = AGENTS[Math.floor(rand() * AGENTS.length)]!;
          const candidates = arrived.filter((e) => e.pubkey !== CAST[who].pubkey);
          if (candidates.length === 0) continue;
          // Any trigger it may be given, not only the newest: retries, late runs.
          const trigger = candidates[Math.floor(rand() * candidates.length)]!;
          const ctx = scene.turn(who, trigger);
          found.push(...problems(scene.conv, events, trigger, ctx.messages).map((p) => `seed ${seed}, ${who} on m${events.indexOf(trigger)}: ${p}`));
          turns++;
        }
      }
      expect(scene.conv.events, `seed ${seed}: every event once`).toHaveLength(events.length);
      // After a restart: the same order and, for every agent and trigger, the same context.
      const restarted = scene.restarted();
      expect(restarted.events.map((e) => e.ev.id), `seed ${seed}: order after restart`).toEqual(scene.conv.events.map((e) => e.ev.id));
      const opts = { nameOf, isAgent };
      for (const who of AGENTS) {
        for (const trigger of events) {
          const where = `seed ${seed}, ${who} reading m${events.indexOf(trigger)}`;
          const live = buildAgentMessages(scene.conv, agent(who), trigger, opts);
          const again = buildAgentMessages(restarted, agent(who), trigger, opts);
          if (JSON.stringify(again) !== JSON.stringify(live)) found.push(`${where}: differs after a restart`);
          found.push(...problems(scene.conv, events, trigger, live.messages).map((p) => `${where}: ${p}`));
        }
      }
    }
    expect(found).toEqual([]);
    expect(turns).toBeGreaterThan(RUNS);
  });
});
