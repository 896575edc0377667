// What TENEX's own cases leave implicit and tenexd must get right on real traffic: events of one
// second arriving in any order (live, a back-fill paging newest first, two relays repeating each
// other), a context built for a trigger that is not the newest event, and agents that answer
// straight over Nostr with their own key. TENEX keeps its history in arrival order and moves an
// agent's index only when it builds that agent's context; tenexd orders by what each event
// answers, then created_at, then arrival (src/event-order.ts), and an agent's own message moves
// its cursor (src/agent-seen.ts).

import { describe, it } from "vitest";
import { AWAY, NEW } from "./harness.js";
import { play, type ContextCase } from "./cases.js";

const PLAN = "Plan: 1) understand the request 2) change the code 3) review it.";

/**
 * The project manager answers with its own key straight on the relay, naming its trigger
 * (TENEX's agents write triggering-event-id) or not (a bare NDK reply); the developer does the
 * same; then the user turns to the manager again: it is told what happened while it was away.
 */
function directAnswer(names: "trigger" | "nothing"): ContextCase {
  return {
    name: names === "trigger"
      ? "an agent that answered straight over Nostr (naming its trigger) gets the away block next time"
      : "an agent that answered straight over Nostr without naming its trigger: its place says what it had seen",
    tenex: `multiAgent: should maintain separate context for each agent, the manager answering with its own key${names === "nothing" ? " (an NDK reply without TENEX's tags)" : ""}`,
    events: {
      q: { root: "user", text: "What should we build?", to: ["pm"] },
      a: { direct: "pm", text: "A task manager", parent: "q", names },
      d: { web: "user", text: "@developer estimate it", parent: "a", to: ["dev"] },
      e: { direct: "dev", text: "Two days", parent: "d", names },
      again: { web: "user", text: "@project-manager do you agree?", parent: "e", to: ["pm"] },
    },
    steps: [
      { arrive: ["q", "a", "d", "e", "again"] },
      { turn: "pm", trigger: "again", expect: [
        "user|What should we build?", "assistant|A task manager",
        AWAY("[User]: @developer estimate it", "[Developer]: Two days"), NEW, "user|@project-manager do you agree?",
      ] },
    ],
  };
}

const ORDER_AND_CURSOR_CASES: ContextCase[] = [
  {
    name: "the demo flow, all in one second: the user's request first, nothing after the trigger",
    tenex: "issue 14: `tenexd context -a coder -c CONV-0001` on the demo (plan → execute → verification in one second)",
    events: {
      ask: { root: "user", text: "Add a health endpoint" },
      route1: { daemon: "orchestrator", text: "make a plan for the request", parent: "ask", to: ["planner"] },
      plan: { daemon: "planner", text: PLAN, parent: "route1", complete: true },
      route2: { daemon: "orchestrator", text: "carry out the plan", parent: "plan", to: ["dev"] },
      done2: { daemon: "dev", text: "Implemented the plan.", parent: "route2", complete: true },
      route3: { daemon: "orchestrator", text: "check the work", parent: "done2", to: ["tester"] },
      done3: { daemon: "tester", text: "Reviewed the work: looks right.", parent: "route3", complete: true },
      end: { daemon: "orchestrator", text: "Done: plan by planner; execute by developer; verification by tester.", parent: "done3" },
    },
    steps: [
      { arrive: ["ask"] },
      { turn: "orchestrator", trigger: "ask", expect: ["user|Add a health endpoint"] },
      { arrive: ["route1"] },
      { turn: "planner", trigger: "route1", expect: ["user|Add a health endpoint", "user|[Orchestrator]: make a plan for the request"] },
      { arrive: ["plan"] },
      { turn: "orchestrator", trigger: "plan", expect: ["user|Add a health endpoint", "assistant|make a plan for the request", `user|[Planner]: ${PLAN}`] },
      { arrive: ["route2"] },
      { turn: "dev", trigger: "route2", expect: [
        "user|Add a health endpoint", "system|[Orchestrator]: make a plan for the request", `system|[Planner]: ${PLAN}`,
        "user|[Orchestrator]: carry out the plan",
      ] },
      { arrive: ["done2", "route3", "done3", "end"] },
      { order: ["ask", "route1", "plan", "route2", "done2", "route3", "done3", "end"] },
      // What `tenexd context -a developer` shows afterwards for its trigger: the same, nothing later.
      { peek: "dev", trigger: "route2", expect: [
        "user|Add a health endpoint", "system|[Orchestrator]: make a plan for the request", `system|[Planner]: ${PLAN}`,
        "user|[Orchestrator]: carry out the plan",
      ] },
    ],
  },
  {
    name: "a reply that arrives before the root it answers (a back-fill, newest first) comes after it",
    tenex: "agentContext: p-tagged mid-conversation sees the history, with the events received newest first",
    events: {
      ask: { root: "user", text: "Build a CLI" },
      pick: { web: "user", text: "@project-manager take this one", parent: "ask", to: ["pm"] },
    },
    steps: [
      { arrive: ["pick", "ask"] },
      { order: ["ask", "pick"] },
      { turn: "pm", trigger: "pick", expect: ["user|Build a CLI", "user|@project-manager take this one"] },
    ],
  },
  {
    name: "the orchestrator's routing reply arriving before the user's request (two relays) comes after it",
    tenex: "integration: should handle orchestrator routing correctly, the routing reply delivered first by a faster relay",
    events: {
      ask: { root: "user", text: "Please add a health endpoint" },
      route: { daemon: "orchestrator", text: "make a plan for the request", parent: "ask", to: ["planner"] },
    },
    steps: [
      { arrive: ["route", "ask", "route"] },
      { order: ["ask", "route"] },
      { turn: "planner", trigger: "route", expect: ["user|Please add a health endpoint", "user|[Orchestrator]: make a plan for the request"] },
    ],
  },
  {
    name: "a thread received newest first is shown oldest first, each reply after what it answers",
    tenex: "multiAgent: should handle the reported bug scenario correctly, its events paged in newest first",
    events: {
      q: { root: "user", text: "@project-manager is PROJECT.md right?", to: ["pm"] },
      x: { web: "user", text: "It is the one in the repository root", parent: "q" },
      y: { direct: "pm", text: "Then it needs a rewrite", parent: "x" },
      z: { web: "user", text: "Go ahead", parent: "y", to: ["pm"] },
    },
    steps: [
      { arrive: ["z", "y", "x", "q"] },
      { order: ["q", "x", "y", "z"] },
      // Its own answer shows it had read what it answered, though that arrived later.
      { turn: "pm", trigger: "z", expect: [
        "user|@project-manager is PROJECT.md right?", "user|It is the one in the repository root", "assistant|Then it needs a rewrite", "user|Go ahead",
      ] },
    ],
  },
  {
    name: "unrelated messages of one second keep the order they were received in",
    tenex: "multiAgent: should maintain separate context for each agent, two messages in the same second",
    events: {
      ask: { root: "user", text: "Let's plan a new feature", to: ["pm"] },
      one: { web: "user", text: "first thought", parent: "ask" },
      two: { daemon: "dev", text: "second thought", parent: "ask" },
      three: { web: "user", text: "third thought", parent: "ask" },
      go: { web: "user", text: "@project-manager sum it up", parent: "ask", to: ["pm"] },
    },
    steps: [
      { arrive: ["ask"] },
      { turn: "pm", trigger: "ask", expect: ["user|Let's plan a new feature"] },
      { arrive: ["three", "one", "two", "go"] },
      { order: ["ask", "three", "one", "two", "go"] },
      { turn: "pm", trigger: "go", expect: [
        "user|Let's plan a new feature", AWAY("[User]: third thought", "[User]: first thought", "[Developer]: second thought"), NEW, "user|@project-manager sum it up",
      ] },
    ],
  },
  {
    name: "the trigger is the end: a context for an older trigger shows nothing after it",
    tenex: "agentContext: should include conversation history…, built for a trigger that is no longer the newest",
    differs: "2: TENEX's away block takes everything after the agent's last turn, later events included",
    events: {
      one: { root: "user", text: "Step one", to: ["pm"] },
      two: { web: "user", text: "Step two", parent: "one", to: ["pm"] },
      aside: { daemon: "dev", text: "I am on it too", parent: "two" },
      three: { web: "user", text: "Step three", parent: "aside", to: ["pm"] },
    },
    steps: [
      { arrive: ["one"] },
      { turn: "pm", trigger: "one", expect: ["user|Step one"] },
      { arrive: ["two", "aside", "three"] },
      { turn: "pm", trigger: "two", expect: ["user|Step one", "user|Step two"], cursorAt: "two" },
      { turn: "pm", trigger: "three", expect: ["user|Step one", "user|Step two", AWAY("[Developer]: I am on it too"), NEW, "user|Step three"] },
      // Asked again for the older trigger, after the agent moved on: still nothing after it.
      { peek: "pm", trigger: "two", expect: ["user|Step one", "user|Step two"] },
    ],
  },
  directAnswer("trigger"),
  directAnswer("nothing"),
];

describe("conformance: order, the trigger as the end, cursors that move", () => {
  for (const c of ORDER_AND_CURSOR_CASES) {
    it(`${c.name}  [${c.tenex}]${c.differs ? ` (differs: ${c.differs})` : ""}`, () => {
      play(c);
    });
  }
});
