// Demo coder: answers its trigger and completes its part of the turn (tool=complete goes to the
// orchestrator, which routes the next step).
import { answer, readInput } from "./lib/respond.mjs";

const input = await readInput();
answer({ reply: `Implemented the plan (demo agent: no real code was changed). Request: "${input.trigger.content.slice(0, 80)}"`, complete: true });
