// Every CLI command, in the order `tenexd --help` lists them, with its line there. Each is loaded
// only when it runs: `tenexd start` would otherwise carry every other command's code (the client,
// the offline reads, the import tool) for the daemon's whole life.

import type { Command } from "../command.js";

export interface CommandEntry {
  name: string;
  /** Its line in `tenexd --help`: kept here, so that the help loads no command (~840 modules, ~0.4 s). */
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "init", summary: "Create .tenex/ in the project directory (--example: the demo project) and its keys",
    load: async () => (await import("./init.js")).init },
  { name: "keys", summary: "Create the missing key files named in .tenex/ and print every public key",
    load: async () => (await import("./keys.js")).keys },
  { name: "doctor", summary: "Check the configuration, key files and their permissions, and agent commands",
    load: async () => (await import("./doctor.js")).doctor },
  { name: "start", summary: "Load the project in .tenex/ and run the daemon until SIGINT or SIGTERM",
    load: async () => (await import("./start.js")).start },
  { name: "stop", summary: "Stop the daemon running on the project, cleanly (as SIGTERM), and wait until it has",
    load: async () => (await import("../../front-desk/cli/stop.js")).stop },
  { name: "status", summary: "Show how the daemon is doing: relays, lag, back-fills, queues, rejections, errors, stuck turns, unread",
    load: async () => (await import("../../front-desk/cli/status.js")).status },
  { name: "conversations", summary: "List and search conversations (title or text, phase, status, participant), paginated",
    load: async () => (await import("../../front-desk/cli/conversations.js")).conversations },
  { name: "show", summary: "Show one conversation (timeline, phases, turns, execution time, viewers) or one message",
    load: async () => (await import("../../front-desk/cli/show.js")).show },
  { name: "context", summary: "Show an agent's context in a conversation (the document its program would read)",
    load: async () => (await import("../../front-desk/cli/context.js")).context },
  { name: "routing", summary: "Show a conversation's routing context: request, turns, open turn, looping signs",
    load: async () => (await import("../../front-desk/cli/routing.js")).routing },
  { name: "inbox", summary: "Show an agent's unread messages, most urgent first (--watch: follow new mail)",
    load: async () => (await import("../../front-desk/cli/inbox.js")).inbox },
  { name: "stats", summary: "Show statistics: conversations by phase/status, message volume, unread and response times",
    load: async () => (await import("../../front-desk/cli/stats.js")).stats },
  { name: "ask", summary: "Start a conversation as the project owner (signed with the owner's key)",
    load: async () => (await import("../../front-desk/cli/ask.js")).ask },
  { name: "send", summary: "Send a direct message from one agent to another (their 1-on-1 conversation)",
    load: async () => (await import("../../front-desk/cli/send.js")).send },
  { name: "discuss", summary: "Start a discussion for the agents of a role (--role) or for all agents (--all)",
    load: async () => (await import("../../front-desk/cli/discuss.js")).discuss },
  { name: "reply", summary: "Reply as an agent in a conversation (--parent: under a given message)",
    load: async () => (await import("../../front-desk/cli/reply.js")).reply },
  { name: "read", summary: "Mark a conversation read by an agent (--viewed: only seen), up to its end or a position",
    load: async () => (await import("../../front-desk/cli/read.js")).read },
  { name: "ack", summary: "Acknowledge one message for an agent (it is no longer unread for it)",
    load: async () => (await import("../../front-desk/cli/ack.js")).ack },
  { name: "close", summary: "Close a conversation (replies are refused until it is reopened)",
    load: async () => (await import("../../front-desk/cli/close.js")).close },
  { name: "reopen", summary: "Reopen a closed conversation",
    load: async () => (await import("../../front-desk/cli/close.js")).reopen },
  { name: "dashboard", summary: "Open the Director's dashboard: a live web page (a login link with a one-time code)",
    load: async () => (await import("../../front-desk/cli/dashboard.js")).dashboard },
  { name: "reindex", summary: "Rebuild the SQLite index from the conversation logs (the daemon must be stopped)",
    load: async () => (await import("./reindex.js")).reindex },
  { name: "import", summary: "Import or top up a TENEX project's conversations (verified) and index them (daemon stopped)",
    load: async () => (await import("./import.js")).importCommand },
  { name: "damage", summary: "List the damage recorded in the conversation logs, or clear it once handled",
    load: async () => (await import("./damage.js")).damage },
];
