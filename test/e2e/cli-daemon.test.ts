// The Director's CLI against a running daemon: every command with and without --json (the
// human form as aligned tables, the JSON form with "source": "daemon"), errors with a clear
// message and a non-zero exit, and desk mode (`inbox --watch`) following new mail until SIGINT.

import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { TenexClient } from "../../daemon/front-desk/client/client.js";
import { BIN, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { cli, cliProcess, useMailboxDaemon } from "./api-fixture.js";

let project: TestProject;
let daemon: RunningDaemon;
let api: TenexClient;
useMailboxDaemon("tenexd-cli-d-", { maxContentBytes: 500 }, (d) => ({ project, daemon, api } = d));
// Filled by the first tests, used by the later ones.
const seen: { conv?: string; root?: string; reply?: string; discussion?: string } = {};

const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe("writing commands", () => {
  it("send: a direct message, as text and as JSON", async () => {
    const text = await cli(project, "send", "--from", "coder", "--to", "reviewer", "-m", "Please review the diff", "--priority", "high", "--type", "instruction");
    ok(text);
    expect(text.stdout).toMatch(/^Started CONV-\d{4}: MSG-H-\d{4} \(event [0-9a-f]{64}\)\n$/);
    const json = await cli(project, "send", "--json", "--from", "reviewer", "--to", "coder", "-m", "Looking at it", "--expires", "1h");
    ok(json);
    const r = json.json();
    expect(r).toEqual(expect.objectContaining({ source: "daemon", created: false, conversationAlias: text.stdout.split(" ")[1]!.slice(0, -1) }));
    expect(r.event.tags).toContainEqual(["expiration", expect.stringMatching(/^\d+$/)]);
    seen.conv = r.conversationAlias;
    seen.root = text.stdout.match(/MSG-H-\d{4}/)![0];
  });

  it("discuss: for a role and for all", async () => {
    const text = await cli(project, "discuss", "--from", "orchestrator", "--role", "planner", "--title", "Planning", "-m", "What next?");
    ok(text);
    expect(text.stdout).toMatch(/^Started CONV-\d{4}: MSG-M-\d{4}/);
    const json = await cli(project, "discuss", "--json", "--from", "planner", "--all", "-m", "Standup in 5");
    ok(json);
    expect(json.json().event.tags).toContainEqual(["scope", "all"]);
    seen.discussion = json.json().conversationAlias;
  });

  it("reply: threaded under a message, as text and as JSON", async () => {
    const text = await cli(project, "reply", "--from", "coder", "-c", seen.conv!, "--parent", seen.root!, "-m", "Fixed it");
    ok(text);
    expect(text.stdout).toMatch(new RegExp(`^Posted in ${seen.conv}: MSG-M-\\d{4}`));
    const json = await cli(project, "reply", "--json", "--from", "reviewer", "-c", seen.discussion!, "-m", "ok", "--to", "coder,planner");
    ok(json);
    const pTags = json.json().event.tags.filter((t: string[]) => t[0] === "p").map((t: string[]) => t[1]);
    expect(pTags).toEqual([project.agents.coder, project.agents.planner]);
    seen.reply = text.stdout.match(/MSG-M-\d{4}/)![0];
  });

  it("read (and --viewed), ack, close, reopen: as text and as JSON", async () => {
    const read = await cli(project, "read", "-a", "reviewer", "-c", seen.conv!);
    ok(read);
    expect(read.stdout).toBe(`Marked read: ${seen.conv} by reviewer\n`);
    const again = await cli(project, "read", "--json", "-a", "reviewer", "-c", seen.conv!);
    expect(again.json()).toEqual(expect.objectContaining({ source: "daemon", changed: false, mark: "read", agent: "reviewer" }));
    // The reviewer's own message showed it had seen the conversation up to there, not further.
    const viewed = await cli(project, "read", "--json", "--viewed", "-a", "reviewer", "-c", seen.conv!);
    expect(viewed.json()).toEqual(expect.objectContaining({ changed: true, mark: "viewed" }));

    const ack = await cli(project, "ack", "-a", "reviewer", "--msg", seen.reply!);
    ok(ack);
    expect(ack.stdout).toBe(`Already acknowledged: ${seen.reply} by reviewer\n`.replace("Already acknowledged", "Acknowledged"));
    expect((await cli(project, "ack", "--json", "-a", "reviewer", "--msg", seen.reply!)).json()).toEqual(expect.objectContaining({ changed: false }));

    const close = await cli(project, "close", "-c", seen.discussion!, "--by", "planner", "--reason", "done");
    expect(close.stdout).toBe(`Closed ${seen.discussion}\n`);
    expect((await cli(project, "close", "--json", "-c", seen.discussion!)).json()).toEqual(expect.objectContaining({ changed: false, status: "closed" }));
    expect((await cli(project, "reopen", "--json", "-c", seen.discussion!)).json()).toEqual(expect.objectContaining({ changed: true, status: "open" }));
    expect((await cli(project, "reopen", "-c", seen.discussion!)).stdout).toBe(`${seen.discussion} was already open\n`);
  });
});

describe("reading commands", () => {
  it("status: text and JSON", async () => {
    const text = await cli(project, "status");
    ok(text);
    expect(text.stdout).toMatch(new RegExp(`^tenexd running \\(pid ${daemon.child.pid}\\), up `));
    expect(text.stdout).toMatch(/^ {2}URL +CONNECTED +LAST EVENT +BEHIND +RECONNECTS +AUTH +LAST ERROR$/m);
    // The daemon's own embedded relay asked for AUTH, and took the daemon's answer.
    expect(text.stdout).toMatch(/^ {2}ws:\/\/127\.0\.0\.1:\d+ +yes +.* +accepted +/m);
    expect(text.stdout).toMatch(/^embedded relay +ws:\/\/127\.0\.0\.1:\d+ \(verifies with [a-z-]+\): \d+ connections \(\d+ authenticated\), refused: /m);
    expect(text.stdout).toMatch(/^ {2}reviewer +\d+/m);
    // The daemon has synced by now: how its back-fill ended.
    expect(text.stdout).toMatch(/catch-up +(running; )?last .*: complete, \d+ fetched in \d+ pages/);
    const json = (await cli(project, "status", "--json")).json();
    expect(json).toEqual(expect.objectContaining({ source: "daemon", running: true }));
    expect(json.status.relays[0].connected).toBe(true);
    // The verifier chosen at start, in the daemon and in its embedded relay's process.
    expect(text.stdout).toMatch(/^verifier +bcrypto-native(, worker pool running)?$/m);
    expect(json.status.verifier).toEqual(expect.objectContaining({ backend: "bcrypto-native", fallback: null }));
    expect(json.status.embeddedRelayGuard.verifier).toBe("bcrypto-native");
    expect(text.stdout).toMatch(/^embedded relay +ws:\/\/127\.0\.0\.1:\d+ \(verifies with bcrypto-native\)/m);
    // And how its agents' programs are started.
    expect(json.status.spawner).toEqual({ backend: "posix-spawn", fallback: null });
    // Freed memory handed back by glibc's malloc_trim: before the ready line, and after the back-fill (done by now).
    expect(json.status.memory.trim).toEqual(expect.objectContaining({ backend: "malloc_trim", fallback: null }));
    expect(json.status.memory.trim.runs).toBeGreaterThanOrEqual(2);
    expect(text.stdout).toMatch(/^agents +runs \d+, failures \d+, running \d+; programs started with posix-spawn$/m);
  });

  it("conversations: text table and JSON, with filters", async () => {
    const text = await cli(project, "conversations");
    ok(text);
    expect(text.stdout).toMatch(/^ALIAS +PHASE +STATUS +MSGS +UPDATED +TITLE$/m);
    expect(text.stdout).toMatch(/^CONV-\d{4} +chat +open +\d+ +\S+ ago +coder ↔ reviewer$/m);
    expect(text.stdout).toMatch(/\(1-3 of 3\)\n$/);
    const json = (await cli(project, "conversations", "--json", "-q", "planning")).json();
    expect(json).toEqual(expect.objectContaining({ source: "daemon", total: 1, limit: 50, offset: 0 }));
    expect(json.items[0].title).toBe("Planning");
    const bad = await cli(project, "conversations", "--phase", "party");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("phase: must be one of chat, brainstorm");
  });

  it("show: a conversation (timeline, thread) and a message, text and JSON", async () => {
    const text = await cli(project, "show", "-c", seen.conv!);
    ok(text);
    expect(text.stdout).toMatch(new RegExp(`^${seen.conv} {2}coder ↔ reviewer {2}\\(open, phase chat\\)`));
    expect(text.stdout).toMatch(/^viewed by +coder, reviewer \(up to the last message\)$/m);
    expect(text.stdout).toMatch(/^ {2}# +WHEN +WHAT +DETAIL$/m);
    // Messages numbered 1, 2, 3 as listed (log positions only in --json).
    expect(text.stdout).toMatch(new RegExp(`^ {2}1 +\\S+ ago +${seen.root} {2}coder \\[high,instruction\\]: Please review the diff$`, "m"));
    expect(text.stdout).toMatch(new RegExp(`^ {2}3 +\\S+ ago +${seen.reply} {2}coder: Fixed it$`, "m"));
    const thread = await cli(project, "show", "-c", seen.conv!, "--thread");
    expect(thread.stdout).toMatch(new RegExp(`^ {4}↳ 3\\. ${seen.reply} coder: Fixed it$`, "m"));
    const json = (await cli(project, "show", "--json", "-c", seen.conv!)).json();
    expect(json.source).toBe("daemon");
    const messages = json.timeline.filter((e: { kind: string }) => e.kind === "message");
    expect(messages.map((e: { number: number }) => e.number)).toEqual([1, 2, 3]);
    expect(messages[2].n).toBeGreaterThan(3);
    const msg = await cli(project, "show", "--msg", seen.root!);
    expect(msg.stdout).toMatch(/^message +MSG-H-\d{4} {2}\([0-9a-f]{64}\)$/m);
    expect(msg.stdout).toMatch(/\nPlease review the diff\n$/);
    expect((await cli(project, "show", "--json", "--msg", seen.root!)).json().content).toBe("Please review the diff");
  });

  it("context and routing: text and JSON", async () => {
    const ctxText = await cli(project, "context", "-a", "reviewer", "-c", seen.conv!);
    ok(ctxText);
    expect(ctxText.stdout).toMatch(/^agent +reviewer$/m);
    expect(ctxText.stdout).toContain("--- user\n[Coder]: Fixed it");
    const ctxJson = (await cli(project, "context", "--json", "-a", "reviewer", "-c", seen.conv!, "--trigger", seen.root!)).json();
    expect(ctxJson).toEqual(expect.objectContaining({ source: "daemon", version: 1 }));
    expect(ctxJson.trigger.content).toBe("Please review the diff");
    const routing = await cli(project, "routing", "-c", seen.conv!);
    ok(routing);
    expect(routing.stdout).toContain("Request: Please review the diff\n\nNo turns yet.\nProblems: none\n");
    expect((await cli(project, "routing", "--json", "-c", seen.conv!)).json().routing.user_request).toBe("Please review the diff");
  });

  it("inbox and stats: text and JSON", async () => {
    const text = await cli(project, "inbox", "-a", "coder");
    ok(text);
    expect(text.stdout).toMatch(/^\d+ unread for coder\n/);
    expect(text.stdout).toMatch(/^MESSAGE +PRIORITY +TYPE +FROM +CONVERSATION +SENT +TITLE +TEXT$/m);
    const json = (await cli(project, "inbox", "--json", "-a", "planner")).json();
    expect(json.source).toBe("daemon");
    expect(json.items.map((m: { preview: string }) => m.preview)).toEqual(expect.arrayContaining(["What next?", "ok"]));
    const stats = await cli(project, "stats");
    expect(stats.stdout).toMatch(/^conversations +3 \(archived 0\)$/m);
    expect(stats.stdout).toMatch(/^ {2}AGENT +ROLE +UNREAD +ANSWERS +MEDIAN +MEAN$/m);
    expect((await cli(project, "stats", "--json")).json()).toEqual(expect.objectContaining({ source: "daemon", unreadThreshold: 50 }));
  });
});

describe("errors", () => {
  it("say what is wrong and exit non-zero; with --json the error is the JSON document", async () => {
    const missing = await cli(project, "show", "-c", "CONV-0999");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("tenexd: conversation not found: CONV-0999\n");
    const json = await cli(project, "show", "--json", "-c", "CONV-0999");
    expect(json.json()).toEqual({ error: { code: "not_found", message: "conversation not found: CONV-0999" } });
    const usage = await cli(project, "send", "--from", "coder", "-m", "x");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--to is required");
    const priority = await cli(project, "send", "--from", "coder", "--to", "planner", "-m", "x", "--priority", "urgent");
    expect(priority.code).toBe(2);
    expect(priority.stderr).toContain("priority: must be one of critical, high, medium, low");
    const big = await cli(project, "send", "--from", "coder", "--to", "planner", "-m", "y".repeat(501));
    expect(big.code).toBe(2);
    expect(big.stderr).toContain("the limit is 500 (limits.maxContentBytes)");
    const self = await cli(project, "send", "--json", "--from", "coder", "--to", "coder", "-m", "x");
    expect(self.json().error.code).toBe("self_message");
    const reindex = await cli(project, "reindex");
    expect(reindex.code).toBe(3); // locked by the running daemon
    expect(reindex.stderr).toContain(`a tenexd (pid ${daemon.child.pid}) is running on this project: stop it before reindexing`);
  });
});

describe("as a child process", () => {
  it("status prints and exits 0", () => {
    const r = cliProcess(project, "status", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.pid).toBe(daemon.child.pid);
    expect(r.stderr).not.toContain("daemon not running");
  });

  it("inbox --watch follows new mail as it arrives and stops on SIGINT with exit 0", async () => {
    // --offset pages the first view only: the watch still sees every new message (it polled with
    // the page's offset and limit once, and missed what came).
    const child = spawn(process.execPath, [BIN, "inbox", "--watch", "--json", "--interval", "200", "--offset", "50", "-a", "planner", "--project", project.dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const lines = () => out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
    const until = (pred: () => boolean, what: string) => new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`timed out waiting for ${what}; stdout: ${out}`)), 15_000);
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          done();
        }
      };
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        check();
      });
      check();
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    await until(() => lines().length >= 1, "the inbox");
    expect(lines()[0].source).toBe("daemon");
    const sent = await api.sendDirect({ from: "reviewer", to: "planner", content: "arrives while watching", priority: "critical" });
    await until(() => lines().some((l) => l.new?.id === sent.event.id), "the new message");
    expect(lines().find((l) => l.new)).toEqual({ source: "daemon", new: expect.objectContaining({ alias: sent.alias, preview: "arrives while watching" }) });
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});
