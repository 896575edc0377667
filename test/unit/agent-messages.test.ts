import { describe, it, expect } from "vitest";
import {
  AWAY_HEADER, NEW_INTERACTION, buildAgentMessages, type AgentContext, type BuildOptions,
} from "../../src/agent-messages.js";
import { ContextCache } from "../../src/agent-view.js";
import { decideAddEvent, decideCursor, stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { NotFoundError } from "../../src/errors.js";
import type { NewRecord } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

/** A conversation driven like the daemon drives it: decide, stamp, apply; agents look and move on. */
function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const user = p.owner;
  const names = new Map(p.info.agents.map((a) => [a.pubkey, a.name]));
  names.set(user.pubkey, "User");
  const cache = new ContextCache();
  const opts: BuildOptions = {
    nameOf: (pk) => names.get(pk) ?? pk.slice(0, 8),
    isAgent: (pk) => p.info.agents.some((a) => a.pubkey === pk),
    cache,
  };
  const agent = (slug: string) => p.info.agents.find((a) => a.slug === slug)!;
  let conv: Conversation | undefined;
  let clock = 1_000;
  let t = 1_700_000_000;
  const at = () => t++;

  const commit = (recs: readonly NewRecord[]) => {
    for (const r of stamp(conv!, recs)) applyRecord(conv!, r);
  };
  const add = (signed: NostrEvent, convId = signed.id) => {
    // As a relay delivers it: plain JSON, without nostr-tools' in-memory "verified" mark.
    const ev = JSON.parse(JSON.stringify(signed)) as NostrEvent;
    conv ??= emptyConversation(convId, p.coordinate);
    commit(decideAddEvent(conv, ev, "relay", clock++));
    return ev;
  };
  /** The agent's context for `trigger`, checked against a cold build; then its cursor moves. */
  const look = (slug: string, trigger: NostrEvent): AgentContext => {
    const cold = buildAgentMessages(conv!, agent(slug), trigger, { ...opts, cache: undefined });
    const ctx = buildAgentMessages(conv!, agent(slug), trigger, opts);
    expect(ctx).toEqual(cold);
    commit(decideCursor(conv!, ctx.cursor, clock++));
    return ctx;
  };
  return { p, user, add, look, at, agent, opts, conv: () => conv! };
}

const contents = (ctx: AgentContext) => ctx.messages.map((m) => `${m.role}|${m.content}`);
const hasMarker = (ctx: AgentContext, marker: string) => ctx.messages.some((m) => m.content.startsWith(marker));

describe("buildAgentMessages", () => {
  it("gives an agent p-tagged on the first message just the user message, with no away block", () => {
    const { p, user, add, look, at } = setup();
    const root = add(p.root(user, "Build a CLI", [p.agents.planner!.pubkey], [], at()));
    const ctx = look("planner", root);
    expect(ctx.messages).toEqual([{ role: "user", content: "Build a CLI" }]);
    expect(ctx.cursor).toEqual({ agent: p.agents.planner!.pubkey, seq: 1 });
  });

  it("shows an agent p-tagged mid-conversation the whole history with roles, trigger last", () => {
    const { p, user, add, look, at } = setup();
    const planner = p.agents.planner!;
    const root = add(p.root(user, "Build a CLI", [planner.pubkey], [], at()));
    look("planner", root);
    add(p.reply(planner, root, "Here is a plan", [], [], root, at()));
    add(p.reply(user, root, "Looks good", [], [], root, at()));
    const trigger = add(p.reply(user, root, "Coder, please implement", [p.agents.coder!.pubkey], [], root, at()));
    const ctx = look("coder", trigger);
    expect(contents(ctx)).toEqual([
      "user|Build a CLI",
      "system|[Planner]: Here is a plan",
      "user|Looks good",
      "user|Coder, please implement",
    ]);
    expect(ctx.cursor.seq).toBe(5);
  });

  it("returns an agent's own earlier replies as assistant, with no away block when only it and the user spoke", () => {
    const { p, user, add, look, at } = setup();
    const planner = p.agents.planner!;
    const root = add(p.root(user, "Build a CLI", [planner.pubkey], [], at()));
    look("planner", root);
    add(p.reply(planner, root, "Which language?", [user.pubkey], [], root, at()));
    const trigger = add(p.reply(user, root, "TypeScript", [planner.pubkey], [], root, at()));
    const ctx = look("planner", trigger);
    expect(contents(ctx)).toEqual(["user|Build a CLI", "assistant|Which language?", "user|TypeScript"]);
    expect(hasMarker(ctx, AWAY_HEADER)).toBe(false);
  });

  it("puts NEW INTERACTION only after an away block", () => {
    const { p, user, add, look, at } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Build a CLI", [planner!.pubkey], [], at()));
    look("planner", root);
    add(p.reply(coder!, root, "I started on the parser", [], [], root, at()));
    add(p.reply(user, root, "Nice", [], [], root, at()));
    const t1 = add(p.reply(user, root, "Planner, update the plan", [planner!.pubkey], [], root, at()));
    const away = look("planner", t1);
    expect(contents(away)).toEqual([
      "user|Build a CLI",
      `system|${AWAY_HEADER}\n[Coder]: I started on the parser\n[User]: Nice`,
      `system|${NEW_INTERACTION}`,
      "user|Planner, update the plan",
    ]);

    add(p.reply(planner!, root, "Plan updated", [], [], root, at()));
    const t2 = add(p.reply(user, root, "Thanks, next step?", [planner!.pubkey], [], root, at()));
    const back = look("planner", t2);
    expect(hasMarker(back, AWAY_HEADER)).toBe(false);
    expect(hasMarker(back, NEW_INTERACTION)).toBe(false);
    // What was "away" last time is now plain history, with roles.
    expect(contents(back)).toEqual([
      "user|Build a CLI",
      "system|[Coder]: I started on the parser",
      "user|Nice",
      "user|Planner, update the plan",
      "assistant|Plan updated",
      "user|Thanks, next step?",
    ]);
  });

  it("takes the claude session from the trigger, keeps it per agent and when absent, replaces it when new", () => {
    const { p, user, add, look, at } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Go", [planner!.pubkey], [["claude-session", "s1"]], at()));
    const first = look("planner", root);
    expect(first.sessionId).toBe("s1");
    expect(first.cursor.session).toBe("s1");

    const noTag = add(p.reply(user, root, "More", [planner!.pubkey], [], root, at()));
    expect(look("planner", noTag).sessionId).toBe("s1");

    const toCoder = add(p.reply(user, root, "Coder too", [coder!.pubkey], [], root, at()));
    expect(look("coder", toCoder).sessionId).toBeUndefined();

    const newTag = add(p.reply(user, root, "Fresh start", [planner!.pubkey], [["claude-session", "s2"]], root, at()));
    expect(look("planner", newTag).sessionId).toBe("s2");
    const after = add(p.reply(user, root, "And again", [planner!.pubkey], [], root, at()));
    expect(look("planner", after).sessionId).toBe("s2");
  });

  it("gives two agents p-tagged on one root the message each, neither with an away block", () => {
    const { p, user, add, look, at } = setup();
    const root = add(p.root(user, "Both of you", [p.agents.planner!.pubkey, p.agents.coder!.pubkey], [], at()));
    for (const slug of ["planner", "coder"]) {
      const ctx = look(slug, root);
      expect(ctx.messages.at(-1)).toEqual({ role: "user", content: "Both of you" });
      expect(hasMarker(ctx, AWAY_HEADER)).toBe(false);
      expect(ctx.messages).toHaveLength(1);
    }
  });

  it("makes an agent's reply that p-tags another agent that agent's trigger, attributed to the sender", () => {
    const { p, user, add, look, at } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Build a CLI", [planner!.pubkey], [], at()));
    look("planner", root);
    const handoff = add(p.reply(planner!, root, "Please write the parser", [coder!.pubkey], [], root, at()));
    const ctx = look("coder", handoff);
    expect(ctx.messages.at(-1)).toEqual({ role: "user", content: "[Planner]: Please write the parser" });
    expect(contents(ctx)).toEqual(["user|Build a CLI", "user|[Planner]: Please write the parser"]);
  });

  it("does not change the conversation", () => {
    const { p, user, add, at, agent, opts, conv } = setup();
    const root = add(p.root(user, "Build a CLI", [p.agents.planner!.pubkey], [], at()));
    add(p.reply(p.agents.coder!, root, "hi", [], [], root, at()));
    const before = structuredClone(conv());
    buildAgentMessages(conv(), agent("planner"), root, opts);
    expect(conv()).toEqual(before);
  });

  it("refuses a trigger that is not in the conversation", () => {
    const { p, user, add, at, agent, opts, conv } = setup();
    add(p.root(user, "Build a CLI", [], [], at()));
    const stranger = p.root(user, "Another conversation", [], [], at());
    expect(() => buildAgentMessages(conv(), agent("planner"), stranger, opts)).toThrow(NotFoundError);
  });
});

describe("buildAgentMessages with a cache", () => {
  it("gives the same context as a cold build over many rounds of a busy conversation", () => {
    const { p, user, add, look, at } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Long job", [planner!.pubkey], [], at()));
    look("planner", root);
    const authors = [user, planner!, coder!, p.orchestrator];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 5; i++) add(p.reply(authors[(round + i) % 4]!, root, `r${round} m${i}`, [], [], root, at()));
      const slug = round % 2 === 0 ? "planner" : "coder";
      const trigger = add(p.reply(user, root, `round ${round}`, [p.agents[slug]!.pubkey], [], root, at()));
      const ctx = look(slug, trigger); // look() asserts warm === cold
      expect(ctx.messages.at(-1)!.content).toBe(`round ${round}`);
    }
  });

  it("keeps the conversation order and a correct context when an event arrives late, inside the cached history", () => {
    const { p, user, add, look, at, conv } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Build a CLI", [planner!.pubkey], [], at()));
    look("planner", root);
    const early = at(); // a timestamp between the root and the next message
    add(p.reply(user, root, "first", [], [], root, at()));
    const t1 = add(p.reply(user, root, "second", [planner!.pubkey], [], root, at()));
    look("planner", t1);
    // The coder's message was written before "first" but reaches us only now.
    add(p.reply(coder!, root, "late but early", [], [], root, early));
    const t2 = add(p.reply(user, root, "third", [planner!.pubkey], [], root, at()));
    const ctx = look("planner", t2);
    expect(conv().events.map((e) => e.ev.content)).toEqual(["Build a CLI", "late but early", "first", "second", "third"]);
    expect(contents(ctx)).toEqual([
      "user|Build a CLI",
      "user|first",
      "user|second",
      `system|${AWAY_HEADER}\n[Coder]: late but early`,
      `system|${NEW_INTERACTION}`,
      "user|third",
    ]);
    // Next time it is history, in its place (by created_at).
    const t3 = add(p.reply(user, root, "fourth", [planner!.pubkey], [], root, at()));
    expect(contents(look("planner", t3)).slice(0, 3)).toEqual([
      "user|Build a CLI", "system|[Coder]: late but early", "user|first",
    ]);
  });

  it("builds from a reply that arrived before its root", () => {
    const { p, user, add, look, at } = setup();
    const planner = p.agents.planner!;
    const root = p.root(user, "Build a CLI", [], [], at());
    const reply = p.reply(user, root, "Planner, start", [planner.pubkey], [], root, at());
    add(reply, root.id);
    add(root);
    const ctx = look("planner", reply);
    expect(contents(ctx)).toEqual(["user|Build a CLI", "user|Planner, start"]);
  });

  it("leaves out what arrived after an older trigger, and shows it with the next one", () => {
    const { p, user, add, look, at } = setup();
    const planner = p.agents.planner!;
    const root = add(p.root(user, "Build a CLI", [planner.pubkey], [], at()));
    look("planner", root);
    const first = add(p.reply(user, root, "Step one", [planner.pubkey], [], root, at()));
    const second = add(p.reply(user, root, "Step two", [planner.pubkey], [], root, at()));
    expect(contents(look("planner", first))).toEqual(["user|Build a CLI", "user|Step one"]);
    expect(contents(look("planner", second))).toEqual(["user|Build a CLI", "user|Step one", "user|Step two"]);
  });

  it("gives the same context again for a trigger already seen (a retried run)", () => {
    const { p, user, add, look, at } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Build a CLI", [planner!.pubkey], [], at()));
    look("planner", root);
    add(p.reply(coder!, root, "parser done", [], [], root, at()));
    const trigger = add(p.reply(user, root, "Planner?", [planner!.pubkey], [], root, at()));
    const first = look("planner", trigger);
    const retry = look("planner", trigger);
    expect(contents(retry)).toEqual(["user|Build a CLI", "system|[Coder]: parser done", "user|Planner?"]);
    expect(retry.cursor).toEqual(first.cursor);
  });

  it("stays right when the caller does not move the cursor between two calls", () => {
    const { p, user, add, look, at, agent, opts, conv } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = add(p.root(user, "Build a CLI", [planner!.pubkey], [], at()));
    look("planner", root);
    add(p.reply(coder!, root, "parser done", [], [], root, at()));
    const trigger = add(p.reply(user, root, "Planner?", [planner!.pubkey], [], root, at()));
    const cold = buildAgentMessages(conv(), agent("planner"), trigger, { ...opts, cache: undefined });
    const once = buildAgentMessages(conv(), agent("planner"), trigger, opts);
    const twice = buildAgentMessages(conv(), agent("planner"), trigger, opts);
    expect(once).toEqual(cold);
    expect(twice).toEqual(cold);
    expect(hasMarker(twice, AWAY_HEADER)).toBe(true);
  });

  it("shows a root that arrived after the agent looked in its place, before the reply it had seen", () => {
    const { p, user, add, look, at } = setup();
    const planner = p.agents.planner!;
    const root = p.root(user, "Build a CLI", [], [], at());
    const reply = add(p.reply(user, root, "Planner, start", [planner.pubkey], [], root, at()), root.id);
    expect(contents(look("planner", reply))).toEqual(["user|Planner, start"]);
    add(root);
    const next = add(p.reply(user, root, "Well?", [planner.pubkey], [], root, at()));
    // Not in the away block, after the reply it had seen: a reply never comes before what it answers.
    expect(contents(look("planner", next))).toEqual(["user|Build a CLI", "user|Planner, start", "user|Well?"]);
  });
});
