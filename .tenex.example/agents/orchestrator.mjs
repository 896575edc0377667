// Demo orchestrator (placeholder): a real one decides which agents act next, in which phase.
import { respond } from "./lib/respond.mjs";

await respond(() => "Orchestrator: routing this request to the planner.");
