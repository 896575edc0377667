// The CLI's command list: each command is loaded only when it runs (the daemon would otherwise
// keep every command's code), so the names main dispatches on must match what each module holds.

import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../daemon/cli/commands/index.js";
import { globalHelp } from "../../daemon/cli/help.js";
import { parseQuery } from "../../daemon/cli/support/options.js";
import { PAGE_DEFAULTS } from "../../daemon/front-desk/api/page-defaults.js";
import { conversationsQuery, inboxQuery } from "../../daemon/front-desk/api/schemas.js";

describe("CLI command list", () => {
  it("each entry loads the command of its own name", async () => {
    for (const entry of COMMANDS) expect((await entry.load()).name).toBe(entry.name);
  });

  it("names every command once, each with its one line for --help, which loads none of them", () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const help = globalHelp(COMMANDS);
    for (const c of COMMANDS) {
      expect(c.summary).toMatch(/^[^\n]{10,120}$/);
      expect(help).toContain(`${c.name.padEnd(Math.max(...names.map((n) => n.length)))}  ${c.summary}`);
    }
  });
});

describe("CLI query options", () => {
  // With no option given, `conversations` and `inbox` skip loading zod and ask for PAGE_DEFAULTS:
  // what the API's schemas make of no options, or the CLI and the API would disagree.
  it("no option: the same query the schema makes of none, without loading it", async () => {
    expect(conversationsQuery.parse({})).toEqual(PAGE_DEFAULTS);
    expect(inboxQuery.parse({})).toEqual(PAGE_DEFAULTS);
    let loaded = 0;
    const schema = async () => (loaded++, conversationsQuery);
    expect(await parseQuery(schema, { q: undefined, archived: false }, PAGE_DEFAULTS)).toEqual(PAGE_DEFAULTS);
    expect(loaded).toBe(0);
    expect(await parseQuery(schema, { limit: "7" }, PAGE_DEFAULTS)).toEqual({ limit: 7, offset: 0 });
    await expect(parseQuery(schema, { limit: "900" }, PAGE_DEFAULTS)).rejects.toThrow(/limit: must be at most 500/);
    expect(loaded).toBe(2);
  });
});
