// Every CLI command, in the order `tenexd --help` lists them. Each is loaded only when it runs
// (or for the help that lists them all): `tenexd start` would otherwise carry every other
// command's code (the client, the offline reads, the import tool) for the daemon's whole life.

import type { Command } from "../command.js";

export interface CommandEntry {
  name: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "init", load: async () => (await import("./init.js")).init },
  { name: "keys", load: async () => (await import("./keys.js")).keys },
  { name: "doctor", load: async () => (await import("./doctor.js")).doctor },
  { name: "start", load: async () => (await import("./start.js")).start },
  { name: "status", load: async () => (await import("../../front-desk/cli/status.js")).status },
  { name: "conversations", load: async () => (await import("../../front-desk/cli/conversations.js")).conversations },
  { name: "show", load: async () => (await import("../../front-desk/cli/show.js")).show },
  { name: "context", load: async () => (await import("../../front-desk/cli/context.js")).context },
  { name: "routing", load: async () => (await import("../../front-desk/cli/routing.js")).routing },
  { name: "inbox", load: async () => (await import("../../front-desk/cli/inbox.js")).inbox },
  { name: "stats", load: async () => (await import("../../front-desk/cli/stats.js")).stats },
  { name: "ask", load: async () => (await import("../../front-desk/cli/ask.js")).ask },
  { name: "send", load: async () => (await import("../../front-desk/cli/send.js")).send },
  { name: "discuss", load: async () => (await import("../../front-desk/cli/discuss.js")).discuss },
  { name: "reply", load: async () => (await import("../../front-desk/cli/reply.js")).reply },
  { name: "read", load: async () => (await import("../../front-desk/cli/read.js")).read },
  { name: "ack", load: async () => (await import("../../front-desk/cli/ack.js")).ack },
  { name: "close", load: async () => (await import("../../front-desk/cli/close.js")).close },
  { name: "reopen", load: async () => (await import("../../front-desk/cli/close.js")).reopen },
  { name: "dashboard", load: async () => (await import("../../front-desk/cli/dashboard.js")).dashboard },
  { name: "reindex", load: async () => (await import("./reindex.js")).reindex },
  { name: "import", load: async () => (await import("./import.js")).importCommand },
  { name: "damage", load: async () => (await import("./damage.js")).damage },
];

/** Every command, loaded (for the help that lists them). */
export const loadCommands = (): Promise<Command[]> => Promise.all(COMMANDS.map((c) => c.load()));
