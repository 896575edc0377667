// The agents the daemon runs itself: programs it starts per trigger (command backend). Mailbox
// agents pull their work through the API instead.

import type { CommandBackend, LoadedAgent } from "../../config/index.js";

/** An agent the daemon runs itself: a program it starts per trigger. */
export type CommandAgent = LoadedAgent & { backend: CommandBackend };

/** The project's command agents by pubkey: the ones src/runs.ts may set to work here. */
export function commandAgentsOf(agents: readonly LoadedAgent[]): Map<string, CommandAgent> {
  return new Map(agents.filter((a): a is CommandAgent => a.backend.type === "command").map((a) => [a.pubkey, a]));
}
