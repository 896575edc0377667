// Demo planner: answers its trigger and completes its part of the turn (tool=complete goes to the
// orchestrator, which routes the next step).
import { answer, readInput } from "./lib/respond.mjs";

const input = await readInput();
answer({ reply: `Plan: 1) understand the request 2) change the code 3) review it. Request: "${input.trigger.content.slice(0, 80)}"`, complete: true });
