// The CLI's command list: each command is loaded only when it runs (the daemon would otherwise
// keep every command's code), so the names main dispatches on must match what each module holds.

import { describe, expect, it } from "vitest";
import { COMMANDS, loadCommands } from "../../daemon/cli/commands/index.js";

describe("CLI command list", () => {
  it("each entry loads the command of its own name", async () => {
    for (const entry of COMMANDS) expect((await entry.load()).name).toBe(entry.name);
  });

  it("names every command once, in the order --help lists them", async () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect((await loadCommands()).map((c) => c.name)).toEqual(names);
  });
});
