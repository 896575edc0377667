// Help texts: the global one (lists every command) and each command's own.

import type { Command } from "./command.js";
import type { CommandEntry } from "./commands/index.js";

export const GLOBAL_OPTIONS_HELP = `Global options:
  --project DIR   Project directory holding .tenex/ (default: the current directory)
  --json          Print machine-readable JSON on stdout (errors: {"error":{"code","message"}})
  --log-json      Log JSON lines to stderr even on a terminal (the default when not a terminal)
  -h, --help      Show help; \`tenexd <command> --help\` for one command
  -V, --version   Print the version`;

const EXIT_CODES = `Exit codes: 0 success, 1 failure, 2 invalid usage or configuration, 3 another tenexd is
running on the project, 4 .tenex is not writable (read-only), 5 no space left for .tenex.`;

export function globalHelp(commands: readonly Pick<CommandEntry, "name" | "summary">[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const list = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n");
  return `tenexd: a daemon that manages multi-agent AI conversations carried over Nostr

Usage: tenexd <command> [options]

Commands:
${list}

${GLOBAL_OPTIONS_HELP}

${EXIT_CODES}
`;
}

export const commandHelp = (cmd: Command): string => `${cmd.usage.trimEnd()}\n\n${GLOBAL_OPTIONS_HELP}\n\n${EXIT_CODES}\n`;
