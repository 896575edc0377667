// Demo planner (placeholder): a real one would turn the request into a plan.
import { respond } from "./lib/respond.mjs";

await respond(() => "Planner: plan ready (demo agent, no real planning).");
