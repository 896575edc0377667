// Demo coder (placeholder): a real one would implement the plan.
import { respond } from "./lib/respond.mjs";

await respond(() => "Coder: done (demo agent, no real code written).");
