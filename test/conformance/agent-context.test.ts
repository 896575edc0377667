// TENEX's agent-context behaviour, case by case (ConversationManager.buildAgentMessages and its
// tests agentContext, integration, multiAgent), played on tenexd's domain: each case gives the
// events with the tags the web client, NDK's reply() or tenexd itself write, published within
// one second as TENEX's tests (and busy clients) do, and the exact messages each agent is given.
//
// tenexd differs from TENEX deliberately in four ways, said in the cases concerned:
// 1. Each event appears once. TENEX puts every event before the trigger in the history AND
//    repeats those after the agent's last turn in the away block; tenexd puts what the agent has
//    seen in the history and only what it has not in the away block.
// 2. The trigger is the end. TENEX's away block takes everything after the agent's last turn,
//    events after the trigger included; tenexd shows nothing ordered after the trigger.
// 3. An agent that never took a turn here gets the history as plain messages: TENEX starts its
//    state at 0 and repeats the whole history in an away block.
// 4. The trigger is always the `user` turn; another agent's trigger keeps its "[Name]: "
//    attribution (TENEX sends it as `system`, which chat-completion APIs do not answer). The away
//    block lists "[Name]: text" lines, attributed like the history, without TENEX's
//    "=== END OF HISTORY ===" instruction (the agent's own prompt says what to do).

import { describe, it } from "vitest";
import { AWAY, NEW } from "./harness.js";
import { play, type ContextCase } from "./cases.js";

const REVIEW = "@project-manager please review the code";
const SPEC_Q = "@project-manager would you say your current PROJECT.md fits properly in what that spec should be?";
const SPEC_A = "Looking at the current PROJECT.md, I can see significant issues with how it aligns to what a proper project specification should be.\n\nWould you like me to help restructure this into a proper product specification?";

const AGENT_CONTEXT_CASES: ContextCase[] = [
  {
    name: "an agent p-tagged on the first message gets just that message",
    tenex: "agentContext: should NOT include current message in history when agent is directly p-tagged",
    events: { q: { root: "user", text: REVIEW, to: ["pm"] } },
    steps: [
      { arrive: ["q"] },
      { turn: "pm", trigger: "q", expect: [`user|${REVIEW}`], cursorAt: "q" },
    ],
  },
  {
    name: "an agent p-tagged mid-conversation sees the whole history, the trigger last",
    tenex: "agentContext: should include conversation history when new agent is p-tagged mid-conversation",
    differs: "3: TENEX also repeats both earlier messages in an away block for an agent that never took a turn",
    events: {
      ask: { root: "user", text: "Let's build a new feature" },
      help: { daemon: "orchestrator", text: "I'll help you with that feature", parent: "ask" },
      impl: { web: "user", text: "@developer can you implement this?", to: ["dev"], parent: "help" },
    },
    steps: [
      { arrive: ["ask", "help", "impl"] },
      { turn: "dev", trigger: "impl", expect: [
        "user|Let's build a new feature",
        "system|[Orchestrator]: I'll help you with that feature",
        "user|@developer can you implement this?",
      ] },
    ],
  },
  {
    name: "an agent's own earlier messages come back as assistant; no away block when only the user spoke",
    tenex: "agentContext: should show agent's own previous messages as assistant messages when continuing conversation",
    events: {
      q: { root: "user", text: "@project-manager what should we build?", to: ["pm"] },
      a: { daemon: "pm", text: "I suggest we build a task management system", parent: "q", to: ["user"] },
      yes: { web: "user", text: "Yes, let's do that", parent: "a", to: ["pm"] },
    },
    steps: [
      { arrive: ["q"] },
      { turn: "pm", trigger: "q", expect: ["user|@project-manager what should we build?"] },
      { arrive: ["a", "yes"] },
      { turn: "pm", trigger: "yes", expect: [
        "user|@project-manager what should we build?",
        "assistant|I suggest we build a task management system",
        "user|Yes, let's do that",
      ] },
    ],
  },
  {
    name: "the orchestrator keeps its context across exchanges",
    tenex: "agentContext: should maintain context across multiple exchanges",
    events: {
      start: { root: "user", text: "Start the project" },
      setup: { daemon: "orchestrator", text: "Starting the project setup", parent: "start" },
      auth: { web: "user", text: "Add authentication", parent: "setup" },
    },
    steps: [
      { arrive: ["start"] },
      { turn: "orchestrator", trigger: "start", expect: ["user|Start the project"] },
      { arrive: ["setup", "auth"] },
      { turn: "orchestrator", trigger: "auth", expect: ["user|Start the project", "assistant|Starting the project setup", "user|Add authentication"] },
    ],
  },
  {
    name: "no NEW INTERACTION for the orchestrator on a fresh user message",
    tenex: "agentContext: should show NEW INTERACTION for orchestrator on fresh user message (its assertion: no marker)",
    differs: "orchestrator-marker-simple.test.ts checks a standalone expression (marker for the orchestrator always) that ConversationManager does not use; tenexd follows the manager: the marker only after an away block",
    events: { hello: { root: "user", text: "Hello, I need help" } },
    steps: [{ arrive: ["hello"] }, { turn: "orchestrator", trigger: "hello", expect: ["user|Hello, I need help"] }],
  },
  {
    name: "no NEW INTERACTION when the orchestrator is p-tagged",
    tenex: "agentContext: should NOT show NEW INTERACTION when orchestrator is p-tagged",
    events: { help: { root: "user", text: "@orchestrator help me", to: ["orchestrator"] } },
    steps: [{ arrive: ["help"] }, { turn: "orchestrator", trigger: "help", expect: ["user|@orchestrator help me"] }],
  },
  {
    name: "no NEW INTERACTION for another agent p-tagged on the first message",
    tenex: "agentContext: should NOT show NEW INTERACTION for non-orchestrator agents",
    events: { review: { root: "user", text: "@project-manager review this", to: ["pm"] } },
    steps: [{ arrive: ["review"] }, { turn: "pm", trigger: "review", expect: ["user|@project-manager review this"] }],
  },
  {
    name: "no NEW INTERACTION when the conversation continues",
    tenex: "agentContext: should NOT show NEW INTERACTION on conversation continuation",
    events: {
      start: { root: "user", text: "Start project" },
      started: { daemon: "orchestrator", text: "Project started", parent: "start" },
      more: { web: "user", text: "Add more features", parent: "started" },
    },
    steps: [
      { arrive: ["start"] },
      { turn: "orchestrator", trigger: "start", expect: ["user|Start project"] },
      { arrive: ["started", "more"] },
      { turn: "orchestrator", trigger: "more", expect: ["user|Start project", "assistant|Project started", "user|Add more features"] },
    ],
  },
  {
    name: "the claude session comes from the trigger and is kept for the agent",
    tenex: "agentContext: should capture and preserve Claude session ID from triggering event; integration: should maintain session continuity",
    events: { q: { root: "user", text: "@project-manager please review this", to: ["pm"], session: "session-abc-123" } },
    steps: [
      { arrive: ["q"] },
      { turn: "pm", trigger: "q", expect: ["user|@project-manager please review this"], session: "session-abc-123" },
    ],
  },
  {
    name: "each agent keeps its own session",
    tenex: "agentContext: should maintain separate session IDs for different agents",
    events: {
      plan: { root: "user", text: "@project-manager plan this", to: ["pm"], session: "pm-session-123" },
      planning: { daemon: "pm", text: "I'll plan this feature", parent: "plan" },
      impl: { web: "user", text: "@developer implement this", to: ["dev"], parent: "planning", session: "dev-session-456" },
      next: { web: "user", text: "@project-manager and now?", to: ["pm"], parent: "planning" },
    },
    steps: [
      { arrive: ["plan"] },
      { turn: "pm", trigger: "plan", expect: ["user|@project-manager plan this"], session: "pm-session-123" },
      { arrive: ["planning", "impl"] },
      { turn: "dev", trigger: "impl", expect: ["user|@project-manager plan this", "system|[Project Manager]: I'll plan this feature", "user|@developer implement this"], session: "dev-session-456" },
      { arrive: ["next"] },
      { turn: "pm", trigger: "next", session: "pm-session-123", expect: [
        "user|@project-manager plan this", "assistant|I'll plan this feature",
        AWAY("[User]: @developer implement this"), NEW, "user|@project-manager and now?",
      ] },
    ],
  },
  {
    name: "a session is kept when the next trigger names none",
    tenex: "agentContext: should preserve session ID across multiple interactions",
    events: {
      start: { root: "user", text: "@project-manager start planning", to: ["pm"], session: "persistent-session" },
      started: { daemon: "pm", text: "Planning started", parent: "start" },
      more: { web: "user", text: "Continue with the plan", parent: "started", to: ["pm"] },
    },
    steps: [
      { arrive: ["start"] },
      { turn: "pm", trigger: "start", expect: ["user|@project-manager start planning"], session: "persistent-session" },
      { arrive: ["started", "more"] },
      { turn: "pm", trigger: "more", expect: ["user|@project-manager start planning", "assistant|Planning started", "user|Continue with the plan"], session: "persistent-session" },
    ],
  },
  {
    name: "a new session replaces the old one",
    tenex: "agentContext: should update session ID when a new one is provided",
    events: {
      hello: { root: "user", text: "@project-manager hello", to: ["pm"], session: "old-session" },
      hi: { daemon: "pm", text: "Hello!", parent: "hello" },
      go: { web: "user", text: "Let's continue", parent: "hi", to: ["pm"], session: "new-session" },
      on: { web: "user", text: "And on", parent: "go", to: ["pm"] },
    },
    steps: [
      { arrive: ["hello"] },
      { turn: "pm", trigger: "hello", expect: ["user|@project-manager hello"], session: "old-session" },
      { arrive: ["hi", "go"] },
      { turn: "pm", trigger: "go", expect: ["user|@project-manager hello", "assistant|Hello!", "user|Let's continue"], session: "new-session" },
      { arrive: ["on"] },
      { turn: "pm", trigger: "on", expect: ["user|@project-manager hello", "assistant|Hello!", "user|Let's continue", "user|And on"], session: "new-session" },
    ],
  },
  {
    name: "no session when none was ever given",
    tenex: "agentContext: should handle missing session IDs gracefully",
    events: { help: { root: "user", text: "@project-manager help me", to: ["pm"] } },
    steps: [{ arrive: ["help"] }, { turn: "pm", trigger: "help", expect: ["user|@project-manager help me"], session: null }],
  },
  {
    name: "a session the agent's output kept is used next time",
    tenex: "agentContext: should work with updateAgentState method",
    events: {
      test: { root: "user", text: "@project-manager test", to: ["pm"] },
      cont: { web: "user", text: "continue", parent: "test", to: ["pm"] },
    },
    steps: [
      { arrive: ["test"] },
      { turn: "pm", trigger: "test", expect: ["user|@project-manager test"], session: null },
      { keepSession: "pm", session: "manually-set-session" },
      { arrive: ["cont"] },
      { turn: "pm", trigger: "cont", expect: ["user|@project-manager test", "user|continue"], session: "manually-set-session" },
    ],
  },
  {
    name: "the reported bug: the agent keeps its context when the user says yes",
    tenex: "integration: should handle the complete real-world bug scenario; multiAgent: should handle the reported bug scenario correctly",
    differs: "3: the human replica, who never took a turn, gets the history once (TENEX repeats it in an away block)",
    events: {
      q: { root: "user", text: SPEC_Q, to: ["pm"] },
      a: { daemon: "pm", text: SPEC_A, parent: "q", to: ["user"] },
      yes: { web: "user", text: "yes, let's do it", parent: "a", to: ["pm"] },
      hr: { web: "user", text: "@human-replica what do you know about what happened in this conversation?", parent: "yes", to: ["hr"] },
    },
    steps: [
      { arrive: ["q"] },
      { turn: "pm", trigger: "q", expect: [`user|${SPEC_Q}`] },
      { arrive: ["a", "yes"] },
      { turn: "pm", trigger: "yes", expect: [`user|${SPEC_Q}`, `assistant|${SPEC_A}`, "user|yes, let's do it"], cursorAt: "yes" },
      { arrive: ["hr"] },
      { turn: "hr", trigger: "hr", expect: [
        `user|${SPEC_Q}`, `system|[Project Manager]: ${SPEC_A}`, "user|yes, let's do it",
        "user|@human-replica what do you know about what happened in this conversation?",
      ] },
    ],
  },
  {
    name: "the orchestrator on a new request: no marker, no away block",
    tenex: "integration: should handle orchestrator routing correctly",
    events: { ask: { root: "user", text: "Help me build a new feature" } },
    steps: [{ arrive: ["ask"] }, { turn: "orchestrator", trigger: "ask", expect: ["user|Help me build a new feature"] }],
  },
  {
    name: "each agent has its own view: what others said while it was away comes in one block",
    tenex: "multiAgent: should maintain separate context for each agent",
    differs: "1: the user's question to the developer and the developer's answer, which the manager has not seen, come once, in the away block; TENEX gives them in the history (as user and system) and again in the away block",
    events: {
      plan: { root: "user", text: "Let's plan a new feature" },
      req: { daemon: "pm", text: "I'll create the requirements", parent: "plan" },
      est: { web: "user", text: "@developer can you estimate the work?", parent: "req", to: ["dev"] },
      days: { daemon: "dev", text: "This will take about 2 days", parent: "est", to: ["user"] },
      think: { web: "user", text: "@project-manager what do you think?", parent: "days", to: ["pm"] },
    },
    steps: [
      { arrive: ["plan"] },
      { turn: "pm", trigger: "plan", expect: ["user|Let's plan a new feature"] },
      { arrive: ["req", "est"] },
      { turn: "dev", trigger: "est", expect: [
        "user|Let's plan a new feature", "system|[Project Manager]: I'll create the requirements", "user|@developer can you estimate the work?",
      ] },
      { arrive: ["days", "think"] },
      { turn: "pm", trigger: "think", expect: [
        "user|Let's plan a new feature", "assistant|I'll create the requirements",
        AWAY("[User]: @developer can you estimate the work?", "[Developer]: This will take about 2 days"), NEW,
        "user|@project-manager what do you think?",
      ] },
    ],
  },
  {
    name: "two agents p-tagged on one root each get the message alone",
    tenex: "multiAgent: should handle concurrent agent interactions correctly",
    events: { both: { root: "user", text: "@project-manager @developer please work together on this feature", to: ["pm", "dev"] } },
    steps: [
      { arrive: ["both"] },
      { turn: "pm", trigger: "both", expect: ["user|@project-manager @developer please work together on this feature"] },
      { turn: "dev", trigger: "both", expect: ["user|@project-manager @developer please work together on this feature"] },
    ],
  },
  {
    name: "a handoff from another agent is the trigger, attributed to its sender",
    tenex: "multiAgent: should preserve context when agents hand off work",
    differs: "4: the handoff is the `user` turn with its \"[Project Manager]: \" attribution; TENEX sends it as `system`",
    events: {
      design: { root: "user", text: "@project-manager design a login system", to: ["pm"] },
      handoff: { daemon: "pm", text: "I've created the design. @developer please implement the login with OAuth", parent: "design", to: ["dev"] },
    },
    steps: [
      { arrive: ["design"] },
      { turn: "pm", trigger: "design", expect: ["user|@project-manager design a login system"] },
      { arrive: ["handoff"] },
      { turn: "dev", trigger: "handoff", expect: [
        "user|@project-manager design a login system",
        "user|[Project Manager]: I've created the design. @developer please implement the login with OAuth",
      ] },
    ],
  },
];

describe("conformance: agent context (TENEX's buildAgentMessages cases)", () => {
  for (const c of AGENT_CONTEXT_CASES) {
    it(`${c.name}  [${c.tenex}]${c.differs ? ` (differs: ${c.differs})` : ""}`, () => {
      play(c);
    });
  }
});
