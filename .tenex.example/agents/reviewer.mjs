// Demo reviewer (placeholder): a real one would review the coder's work.
import { respond } from "./lib/respond.mjs";

await respond(() => "Reviewer: looks good (demo agent, nothing was reviewed).");
