// Demo orchestrator: routes a request through plan → execute → verification, one agent per
// phase, then answers the user in chat. It reads its routing context to know where it is.
import { answer, readInput } from "./lib/respond.mjs";

const input = await readInput();
const { routing_history: history, current_routing: current } = input.routing;
const STEPS = [
  { phase: "plan", agent: "planner", reason: "make a plan for the request" },
  { phase: "execute", agent: "coder", reason: "carry out the plan" },
  { phase: "verification", agent: "reviewer", reason: "check the work" },
];

if (current) {
  // A turn is still running: nothing to decide until it completes.
  answer({ reply: `Waiting for turn ${current.turn} (${current.agents.join(", ")}) to complete.` });
} else {
  const done = history.filter((t) => t.status === "completed").length;
  const next = STEPS[done];
  if (next) {
    answer({ route: { agents: [next.agent], phase: next.phase, reason: next.reason } });
  } else {
    answer({
      reply: `Done: ${history.map((t) => `${t.phase} by ${t.agents.join(", ")}`).join("; ")}.`,
      phase: { to: "chat", message: "All steps completed; back to chat." },
    });
  }
}
