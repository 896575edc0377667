// Conformance cases as data: the events of a conversation (declared in publication order, built
// the way the clients build them), then what happens, step by step: events arriving, agents
// taking their turn (context built, cursor moved), contexts read without changing anything.

import { expect } from "vitest";
import type { NostrEvent } from "../../src/types.js";
import { daemonReply, directReply, line, Scene, T0, webReply, webRoot, type Who } from "./harness.js";

/** How an event is published, and by whom. `parent`: an earlier event's name (default: the root). */
export type EventSpec =
  | { root: Who; text: string; to?: Who[]; at?: number; session?: string; tags?: string[][] }
  /** From the web client (a user). */
  | { web: Who; text: string; parent?: string; to?: Who[]; at?: number; session?: string }
  /** From an agent run by tenexd (it answers `trigger`, default its parent). */
  | { daemon: Who; text: string; parent?: string; to?: Who[]; complete?: boolean; at?: number; session?: string }
  /** From an agent answering straight over Nostr with its own key (NDK reply()). */
  | { direct: Who; text: string; parent?: string; to?: Who[]; at?: number; names?: "trigger" | "nothing" };

export type Step =
  /** These events reach the daemon now, in this order (a relay may repeat one). */
  | { arrive: string[] }
  /** `agent` takes its turn on `trigger`: the exact messages it is given; then its cursor moves. */
  | { turn: Who; trigger: string; expect: string[]; session?: string | null; cursorAt?: string }
  /** `tenexd context`: what `agent` would be given for `trigger`; nothing changes. */
  | { peek: Who; trigger: string; expect: string[] }
  /** The agent's output kept a claude session (TENEX's updateAgentState). */
  | { keepSession: Who; session: string }
  /** The conversation's events, in the order every reader shows them. */
  | { order: string[] };

export interface ContextCase {
  name: string;
  /** The TENEX test (file: title) whose behaviour this pins, or why the case exists. */
  tenex: string;
  /** Where tenexd deliberately differs from TENEX, and why. */
  differs?: string;
  events: Record<string, EventSpec>;
  steps: Step[];
}

function build(specs: Record<string, EventSpec>): Map<string, NostrEvent> {
  const built = new Map<string, NostrEvent>();
  let root: NostrEvent | undefined;
  const get = (name: string | undefined): NostrEvent => {
    const ev = name === undefined ? root : built.get(name);
    if (!ev) throw new Error(`event "${name ?? "root"}" is not declared before its use`);
    return ev;
  };
  for (const [name, s] of Object.entries(specs)) {
    const at = s.at ?? T0;
    const session = "session" in s && s.session ? [["claude-session", s.session]] : [];
    let ev: NostrEvent;
    if ("root" in s) ev = root = webRoot(s.root, s.text, s.to ?? [], at, [...session, ...(s.tags ?? [])]);
    else if ("web" in s) ev = webReply(s.web, get(s.parent), s.text, s.to ?? [], at, session);
    else if ("daemon" in s) {
      ev = daemonReply(s.daemon, get(undefined), get(s.parent), s.text, {
        ...(s.to ? { to: s.to } : {}), ...(s.complete ? { complete: true } : {}), at, ...(s.session ? { session: s.session } : {}),
      });
    } else {
      const parent = get(s.parent);
      ev = directReply(s.direct, parent, s.text, { ...(s.to ? { to: s.to } : {}), at, ...(s.names !== "nothing" ? { trigger: parent } : {}) });
    }
    built.set(name, ev);
  }
  return built;
}

/** Plays a case; `expect`s fail with the step that broke. */
export function play(c: ContextCase): Scene {
  const events = build(c.events);
  const ev = (name: string) => {
    const e = events.get(name);
    if (!e) throw new Error(`unknown event "${name}"`);
    return e;
  };
  const rootName = Object.keys(c.events).find((k) => "root" in c.events[k]!)!;
  const scene = new Scene(ev(rootName).id);
  const contents = new Map([...events].map(([name, e]) => [e.content, name]));
  c.steps.forEach((step, i) => {
    const where = `step ${i + 1} (${JSON.stringify(step).slice(0, 60)})`;
    if ("arrive" in step) scene.arrive(...step.arrive.map(ev));
    else if ("turn" in step) {
      const ctx = scene.turn(step.turn, ev(step.trigger));
      expect(ctx.messages.map(line), where).toEqual(step.expect);
      if (step.session !== undefined) expect(ctx.sessionId ?? null, `${where}: session`).toBe(step.session);
      if (step.cursorAt !== undefined) expect(scene.cursorOf(step.turn), `${where}: cursor`).toBe(scene.positionOf(ev(step.cursorAt)));
    } else if ("peek" in step) {
      expect(scene.peek(step.peek, ev(step.trigger)).messages.map(line), where).toEqual(step.expect);
    } else if ("keepSession" in step) scene.keepSession(step.keepSession, step.session);
    else expect(scene.contents().map((t) => contents.get(t)), where).toEqual(step.order);
  });
  return scene;
}
