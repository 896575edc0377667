// The orchestrator's routing context (TENEX's buildOrchestratorRoutingContext: user_request,
// routing_history, current_routing) and its turns, case by case. TENEX's OrchestratorRouting
// tests check an older shape the manager no longer builds (initial_request, phase_history,
// last_messages, isCurrent): those assertions are not copied; their scenarios are, against the
// shape the manager builds today and tenexd serves (docs/agent-protocol.md, "The orchestrator's
// input").

import { describe, expect, it } from "vitest";
import { buildRoutingContext, type RoutingContext } from "../../src/routing-context.js";
import type { NostrEvent, Phase } from "../../src/types.js";
import { AWAY, CAST, daemonReply, line, NEW, Scene, T0, webReply, webRoot, type Who } from "./harness.js";

const slugOf = (pubkey: string) => Object.values(CAST).find((p) => p.pubkey === pubkey)?.slug ?? pubkey;

type Step =
  | { send: (root: NostrEvent, said: Map<string, NostrEvent>) => NostrEvent; as?: string; twice?: boolean }
  | { route: Who[]; phase: Phase; reason: string };

interface RoutingCase {
  name: string;
  tenex: string;
  differs?: string;
  root: { by: Who; text: string };
  /** Events that arrive before the root (a back-fill, newest first). */
  before?: (root: NostrEvent) => NostrEvent[];
  steps: Step[];
  /** The routing context at the end; timestamps left out (they are the turn's clock). */
  expect: Omit<RoutingContext, "routing_history" | "current_routing"> & {
    routing_history: { turn: number; phase: Phase; agents: string[]; status: string; completions: string[] }[];
    current_routing: { turn: number; phase: Phase; agents: string[]; status: string; completions: string[] } | null;
  };
}

const CASES: RoutingCase[] = [
  {
    name: "a new conversation: the request, no turns yet",
    tenex: "OrchestratorRouting: Empty conversation (scenario); ConversationManager.buildOrchestratorRoutingContext",
    differs: "TENEX's test expects initial_request and a phase_history entry for chat; the manager builds user_request, routing_history [] and current_routing null, as tenexd does",
    root: { by: "user", text: "Build a login page" },
    steps: [],
    expect: { user_request: "Build a login page", routing_history: [], current_routing: null },
  },
  {
    name: "a routed turn still waiting is the current routing",
    tenex: "ConversationManager.buildOrchestratorRoutingContext: an incomplete turn is current_routing",
    root: { by: "user", text: "Build a dashboard" },
    steps: [{ route: ["dev"], phase: "execute", reason: "build the components" }],
    expect: {
      user_request: "Build a dashboard", routing_history: [],
      current_routing: { turn: 1, phase: "execute", agents: ["developer"], status: "open", completions: [] },
    },
  },
  {
    name: "one of two routed agents completed: still current, with its completion",
    tenex: "ConversationManager.buildOrchestratorRoutingContext: a completion whose turn still waits for others",
    root: { by: "user", text: "Fix the authentication bug" },
    steps: [
      { route: ["dev", "tester"], phase: "execute", reason: "fix it and test it" },
      { send: (root, s) => daemonReply("dev", root, s.get("route1")!, "Fixed the JWT validation issue", { complete: true, phase: "execute" }) },
    ],
    expect: {
      user_request: "Fix the authentication bug", routing_history: [],
      current_routing: { turn: 1, phase: "execute", agents: ["developer", "tester"], status: "open", completions: ["developer: Fixed the JWT validation issue"] },
    },
  },
  {
    name: "the last completion closes the turn: it moves to the history, nothing is current",
    tenex: "OrchestratorRouting: Single phase conversation (scenario); the manager adds the triggering completion and closes the turn",
    differs: "TENEX adds the completion while building the context (a read that writes); tenexd records it when the completion arrives, so every reader sees the same state",
    root: { by: "user", text: "Build a login page" },
    steps: [
      { route: ["planner"], phase: "plan", reason: "needs a plan first" },
      { send: (root, s) => daemonReply("planner", root, s.get("route1")!, "Plan created for login page implementation", { complete: true, phase: "plan" }) },
    ],
    expect: {
      user_request: "Build a login page",
      routing_history: [{ turn: 1, phase: "plan", agents: ["planner"], status: "completed", completions: ["planner: Plan created for login page implementation"] }],
      current_routing: null,
    },
  },
  {
    name: "turns after turns: the whole history, oldest first",
    tenex: "OrchestratorRouting: Multi-phase conversation (scenario)",
    root: { by: "user", text: "Fix the authentication bug" },
    steps: [
      { route: ["pm"], phase: "plan", reason: "understand the bug" },
      { send: (root, s) => daemonReply("pm", root, s.get("route1")!, "Bug identified in auth flow", { complete: true, phase: "plan" }) },
      { route: ["dev"], phase: "execute", reason: "fix it" },
      { send: (root, s) => daemonReply("dev", root, s.get("route2")!, "JWT validation corrected", { complete: true, phase: "execute" }) },
      { route: ["pm"], phase: "verification", reason: "check the fix" },
    ],
    expect: {
      user_request: "Fix the authentication bug",
      routing_history: [
        { turn: 1, phase: "plan", agents: ["project-manager"], status: "completed", completions: ["project-manager: Bug identified in auth flow"] },
        { turn: 2, phase: "execute", agents: ["developer"], status: "completed", completions: ["developer: JWT validation corrected"] },
      ],
      current_routing: { turn: 3, phase: "verification", agents: ["project-manager"], status: "open", completions: [] },
    },
  },
  {
    name: "a completion delivered twice (two relays) counts once",
    tenex: "ConversationManager.addCompletionToTurn / buildOrchestratorRoutingContext: completions of a turn",
    differs: "TENEX pushes a completion each time it is given one; tenexd keys completions by event id",
    root: { by: "user", text: "Build a dashboard" },
    steps: [
      { route: ["dev", "tester"], phase: "execute", reason: "build and test" },
      { send: (root, s) => daemonReply("dev", root, s.get("route1")!, "Components built", { complete: true, phase: "execute" }), twice: true },
    ],
    expect: {
      user_request: "Build a dashboard", routing_history: [],
      current_routing: { turn: 1, phase: "execute", agents: ["developer", "tester"], status: "open", completions: ["developer: Components built"] },
    },
  },
  {
    name: "the request is the root's, even when a reply reached the daemon first",
    tenex: "ConversationManager.buildOrchestratorRoutingContext: user_request = the first message",
    differs: "TENEX takes the first event of its history, whatever arrived first; tenexd takes the conversation's root",
    root: { by: "user", text: "Deploy to production" },
    before: (root) => [webReply("user", root, "Also run the migrations", [], T0)],
    steps: [],
    expect: { user_request: "Deploy to production", routing_history: [], current_routing: null },
  },
];

function play(c: RoutingCase): { scene: Scene; said: Map<string, NostrEvent> } {
  const root = webRoot(c.root.by, c.root.text);
  const scene = new Scene(root.id);
  const said = new Map<string, NostrEvent>();
  scene.arrive(...(c.before?.(root) ?? []), root);
  let routes = 0;
  for (const step of c.steps) {
    if ("route" in step) {
      routes++;
      // The orchestrator's routing reply, and the turn its output opened.
      const reply = daemonReply("orchestrator", root, [...said.values()].at(-1) ?? root, step.reason, { to: step.route, phase: step.phase });
      said.set(`route${routes}`, reply);
      scene.openTurn(`turn-${routes}`, step.phase, step.route.map((w) => CAST[w].pubkey), step.reason);
      scene.arrive(reply);
    } else {
      const ev = step.send(root, said);
      said.set(step.as ?? `said${said.size}`, ev);
      scene.arrive(ev);
      if (step.twice) scene.arrive(ev);
    }
  }
  return { scene, said };
}

const shape = (r: RoutingContext) => {
  const entry = (e: RoutingContext["routing_history"][number]) => ({
    turn: e.turn, phase: e.phase, agents: e.agents, status: e.status, completions: e.completions.map((x) => `${x.agent}: ${x.message}`),
  });
  return { user_request: r.user_request, routing_history: r.routing_history.map(entry), current_routing: r.current_routing && entry(r.current_routing) };
};

describe("conformance: the orchestrator's routing context", () => {
  for (const c of CASES) {
    it(`${c.name}  [${c.tenex}]${c.differs ? ` (differs: ${c.differs})` : ""}`, () => {
      const { scene } = play(c);
      expect(shape(buildRoutingContext(scene.conv, slugOf))).toEqual(c.expect);
      // A restart rebuilds the same routing context from the log.
      expect(shape(buildRoutingContext(scene.restarted(), slugOf))).toEqual(c.expect);
    });
  }

  it("a user's interruption reaches the orchestrator as its trigger, the open turn still current  [OrchestratorRouting: User interruption (scenario)]", () => {
    const { scene, said } = play({
      ...CASES[1]!,
      steps: [
        { route: ["dev"], phase: "execute", reason: "build the components" },
        { send: (root, s) => daemonReply("dev", root, s.get("route1")!, "Building the dashboard components", { phase: "execute" }), as: "working" },
        { send: (_root, s) => webReply("user", s.get("working")!, "Also add dark mode support"), as: "interrupt" },
      ],
    });
    const ctx = scene.peek("orchestrator", said.get("interrupt")!);
    // Its own routing reply showed what it had seen: the developer's progress came while it was away.
    expect(ctx.messages.map(line)).toEqual([
      "user|Build a dashboard", "assistant|build the components", AWAY("[Developer]: Building the dashboard components"), NEW,
      "user|Also add dark mode support",
    ]);
    expect(buildRoutingContext(scene.conv, slugOf).current_routing).toMatchObject({ turn: 1, status: "open", agents: ["developer"] });
  });
});
