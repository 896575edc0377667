// The CLI without a running daemon: reads answer from the index opened read-only and say so
// (stderr, and "source": "index" in JSON), writes are refused with a clear message, and the two
// commands that need the daemon stopped (reindex, import) do their work.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import type { PostResult } from "../../daemon/front-desk/shapes.js";
import { projectKeys, startDaemon, type TestProject } from "../helpers/daemon.js";
import { writeTenexFixture } from "../helpers/tenex-fixture.js";
import { cli, cliProcess, endpointOf, mailboxProject } from "./api-fixture.js";

let tmp: string;
let project: TestProject;
let direct: PostResult;
let reply: PostResult;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-cli-o-"));
  project = mailboxProject(join(tmp, "p"));
  const daemon = await startDaemon(project.dir);
  try {
    const api = new TenexClient(endpointOf(project));
    direct = await api.sendDirect({ from: "planner", to: "coder", content: "Plan attached", type: "data", priority: "high" });
    reply = await api.reply({ from: "coder", conversation: direct.conversationId, content: "Got it" });
    await api.discuss({ from: "orchestrator", scope: "all", title: "Retro", content: "what went well?" });
    await api.close(direct.conversationId, { reason: "done" });
  } finally {
    expect(await daemon.stop()).toBe(0);
  }
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe("reads without a daemon", () => {
  it("say so on stderr and in JSON (a child process, as users run it)", () => {
    const text = cliProcess(project, "conversations");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe("(daemon not running: answered from the index, read-only)\n");
    expect(text.stdout).toMatch(/^CONV-\d{4} +chat +closed +2 +\S+ ago +planner ↔ coder$/m);
    const json = cliProcess(project, "inbox", "--json", "-a", "coder");
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expect.objectContaining({ source: "index", total: 2 }));
  });

  it("leave the index as it was (opened read-only)", async () => {
    const index = join(project.tenexDir, "index.sqlite");
    const before = readFileSync(index);
    const mtime = statSync(index).mtimeMs;
    for (const cmd of [["stats"], ["conversations"], ["inbox", "-a", "coder"], ["show", "-c", direct.conversationAlias!]]) ok(await cli(project, ...cmd));
    expect(statSync(index).mtimeMs).toBe(mtime);
    expect(readFileSync(index).equals(before)).toBe(true);
  });

  it("in a directory with no .tenex/: say so and how to fix it, exit 2", async () => {
    const empty = mkdtempSync(join(tmp, "empty-"));
    for (const cmd of ["status", "conversations"]) {
      const r = await cli({ ...project, dir: empty }, cmd);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`tenexd: .tenex: not found in ${empty}: run \`tenexd init\` there, or pass --project DIR\n`);
    }
  });

  it("status: not running, what the index holds; text and JSON", async () => {
    const text = await cli(project, "status");
    ok(text);
    expect(text.stdout).toMatch(/^tenexd is not running on /);
    expect(text.stdout).toMatch(/^conversations +2 \(closed 1, open 1\)$/m);
    const json = (await cli(project, "status", "--json")).json();
    expect(json).toEqual(expect.objectContaining({ source: "index", running: false }));
    expect(json.stats.conversations.total).toBe(2);
  });

  it("conversations, show, inbox, stats: text and JSON", async () => {
    expect((await cli(project, "conversations")).stdout).toMatch(/^ALIAS +PHASE +STATUS +MSGS +UPDATED +TITLE$/m);
    expect((await cli(project, "conversations", "--json", "--status", "open")).json().items.map((c: { title: string }) => c.title)).toEqual(["Retro"]);

    const show = await cli(project, "show", "-c", direct.conversationAlias!);
    ok(show);
    expect(show.stdout).toContain(`${reply.alias}  coder: Got it`);
    expect(show.stdout).toMatch(/^ {5}\S+ ago +status +closed: done$/m);
    expect(show.stdout).toMatch(new RegExp(`^ {2}2 +\\S+ ago +${reply.alias} {2}coder: Got it$`, "m"));
    const shown = (await cli(project, "show", "--json", "-c", direct.conversationId)).json();
    expect(shown).toEqual(expect.objectContaining({ source: "index" }));
    expect(shown.timeline.find((e: { alias?: string }) => e.alias === direct.alias).content).toBe("Plan attached");
    expect((await cli(project, "show", "--msg", direct.alias!)).stdout).toMatch(/\nPlan attached\n$/);
    expect((await cli(project, "show", "--json", "--msg", reply.alias!)).json().content).toBe("Got it");

    const inbox = await cli(project, "inbox", "-a", "coder");
    expect(inbox.stdout).toMatch(new RegExp(`^${direct.alias} +high +data +planner +${direct.conversationAlias}`, "m"));
    expect((await cli(project, "inbox", "--json", "-a", "coder", "--type", "data")).json().items).toHaveLength(1);

    expect((await cli(project, "stats")).stdout).toMatch(/^messages +3; /m);
    expect((await cli(project, "stats", "--json")).json()).toEqual(expect.objectContaining({ source: "index" }));
  });

  it("context and routing: text and JSON, from the logs read as they are", async () => {
    const text = await cli(project, "context", "-a", "coder", "-c", direct.conversationAlias!);
    ok(text);
    expect(text.stdout).toContain("--- user\n[Planner]: Plan attached");
    const json = (await cli(project, "context", "--json", "-a", "planner", "-c", direct.conversationAlias!)).json();
    expect(json).toEqual(expect.objectContaining({ source: "index", version: 1 }));
    expect(json.trigger.content).toBe("Got it");
    expect((await cli(project, "routing", "-c", direct.conversationAlias!)).stdout).toContain("Request: Plan attached");
    expect((await cli(project, "routing", "--json", "-c", direct.conversationAlias!)).json().source).toBe("index");
  });
});

describe("writes without a daemon", () => {
  it("are refused with a clear message and exit 1, as text and as JSON", async () => {
    const cases: string[][] = [
      ["send", "--from", "coder", "--to", "planner", "-m", "hi"],
      ["discuss", "--from", "coder", "--all", "-m", "hi"],
      ["reply", "--from", "coder", "-c", direct.conversationAlias!, "-m", "hi"],
      ["read", "-a", "coder", "-c", direct.conversationAlias!],
      ["ack", "-a", "coder", "--msg", direct.alias!],
      ["close", "-c", direct.conversationAlias!],
      ["reopen", "-c", direct.conversationAlias!],
    ];
    for (const args of cases) {
      const text = await cli(project, ...args);
      expect(text.code, args[0]).toBe(1);
      expect(text.stderr).toMatch(/^tenexd: .+ needs the running daemon \(only it writes\): start it with `tenexd start --project /);
      const json = await cli(project, ...args, "--json");
      expect(json.json().error.code, args[0]).toBe("daemon_not_running");
    }
  });
});

describe("reindex and import (daemon stopped)", () => {
  it("reindex rebuilds the index from the logs: the same conversations, messages and unread mail", async () => {
    const text = await cli(project, "reindex");
    ok(text);
    expect(text.stdout).toMatch(/^conversations +2$/m);
    const json = (await cli(project, "reindex", "--json")).json();
    expect(json).toEqual(expect.objectContaining({ source: "index", conversations: 2, unreadable: [] }));
    expect(json.records).toBeGreaterThan(4);
    const after = (await cli(project, "show", "--json", "--msg", direct.event.id)).json();
    expect(after.content).toBe("Plan attached");
    expect((await cli(project, "conversations", "--json")).json().total).toBe(2);
    expect((await cli(project, "inbox", "--json", "-a", "coder")).json().total).toBe(2);
  });

  it("import refuses another project's TENEX data, saying what differs and how to fix it; --dry-run --force writes nothing", async () => {
    const other = writeTenexFixture(join(tmp, "tenex-other"));
    const before = (await cli(project, "conversations", "--json")).json().total;
    const refused = await cli(project, "import", "--from", join(tmp, "tenex-other"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not this project's TENEX data \(31933:[0-9a-f]{64}:tenexd-demo\); nothing was imported/);
    expect(refused.stderr).toContain(`TENEX's events belong to project ${other.project.coordinate}`);
    expect(refused.stderr).toMatch(/fix: config\.json: "project": \{ "owner": \{ "pubkey": "npub1\w+" \} \}/);
    expect(refused.stderr).toMatch(/; config\.json: "project": \{ "d": "test-project" \}/);
    expect(refused.stderr).toMatch(/agents\.json has no agent "ghost"/);
    expect((await cli(project, "import", "--json", "--from", other.dir)).json().error.code).toBe("project_mismatch");
    const dry = await cli(project, "import", "--from", other.dir, "--dry-run", "--force");
    ok(dry);
    expect(dry.stdout).toMatch(/^dry run: nothing was written$/m);
    expect(dry.stdout).toMatch(/^would import +3 conversations, 13 events$/m);
    expect((await cli(project, "conversations", "--json")).json().total).toBe(before);
  });

  it("import brings a matching TENEX project in, verified, indexed and read as TENEX had processed it; again adds nothing", async () => {
    const fx = writeTenexFixture(join(tmp, "tenex"), { keys: projectKeys(project), ghost: false });
    const unread = (await cli(project, "inbox", "--json", "-a", "orchestrator")).json().total;
    const text = await cli(project, "import", "--from", join(tmp, "tenex"));
    ok(text);
    expect(text.stdout).toMatch(/^imported +3 conversations, 13 events$/m);
    expect(text.stdout).toMatch(/^completions +3 linked to their events, 1 with no event/m);
    expect(text.stdout).toMatch(/^bad event +/m);
    const listed = (await cli(project, "conversations", "--json", "--limit", "10")).json();
    expect(listed.items.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([fx.main.id, fx.live.id, fx.old.id]));
    expect((await cli(project, "show", "--json", "-c", fx.main.id)).json().conversation.title).toBe("Build a login page");
    // Every completion addressed the orchestrator: TENEX had processed them all.
    expect((await cli(project, "inbox", "--json", "-a", "orchestrator")).json().total).toBe(unread);
    const again = (await cli(project, "import", "--json", "--from", fx.dir)).json();
    expect(again).toEqual(expect.objectContaining({ source: "index", imported: [], toppedUp: [], indexed: 0 }));
    expect(again.unchanged.sort()).toEqual([fx.main.id, fx.live.id, fx.old.id].sort());
  });

  it("import says what is wrong with --from: missing, a file, a folder without TENEX data", async () => {
    const missing = await cli(project, "import", "--from", join(tmp, "nowhere"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("does not exist");
    writeFileSync(join(tmp, "export.json"), "{}");
    const file = await cli(project, "import", "--from", join(tmp, "export.json"));
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/^tenexd: .*export\.json is a file: give the TENEX project directory/);
    expect(file.stderr).not.toMatch(/internal error|\n +at /);
    mkdirSync(join(tmp, "empty"));
    const empty = await cli(project, "import", "--from", join(tmp, "empty"));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/found no TENEX project there/);
    expect(empty.stdout).toBe("");
  });
});
