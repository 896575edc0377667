// Issue 14 end to end, with the daemon as a child process: the demo's context reads in the order
// things happened and stops at the trigger; a direct message between two agents stays between
// them; an agent that answers with its own key straight on the relay has its cursor moved, so
// the next time it is addressed it is told what happened while it was away.

import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decode, neventEncode } from "nostr-tools/nip19";
import { finalizeEvent } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AWAY_HEADER, NEW_INTERACTION } from "../../src/agent-messages.js";
import type { NostrEvent } from "../../src/types.js";
import { BIN, eventually, makeProject, readLog, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { publishRaw, startTestRelay, type TestRelay } from "../helpers/relay.js";
import { useMailboxAgents } from "../helpers/fault-tools.js";

let tmp: string;
let relay: TestRelay;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-context-"));
  relay = await startTestRelay();
});

afterAll(async () => {
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function cli(project: TestProject, ...args: string[]): any {
  const r = spawnSync(process.execPath, [BIN, ...args, "--project", project.dir, "--json"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tenexd ${args.join(" ")} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

async function cliAsync(project: TestProject, ...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args, "--project", project.dir, "--json"], { encoding: "utf8" });
  return JSON.parse(stdout);
}

const events = (project: TestProject, id: string): NostrEvent[] =>
  existsSync(join(project.tenexDir, "conversations", `${id}.jsonl`))
    ? readLog(project.tenexDir, id).filter((r) => r.t === "event").map((r) => r.ev as NostrEvent)
    : [];

describe("the demo, command agents", () => {
  let project: TestProject;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    project = makeProject(join(tmp, "demo"), (c) => {
      c.relays = [relay.url];
    });
    daemon = await startDaemon(project.dir);
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it("a new project's first start is reported as such: no rebuilt index, no unclean start", () => {
    const { status } = cli(project, "status");
    expect(status.startup).toEqual({ cleanStart: true, firstStart: true });
  });

  let id: string;

  it("`tenexd context` for the coder shows the user's request first and nothing after its trigger", async () => {
    const asked = cli(project, "ask", "-m", "Add a health endpoint");
    id = asked.conversationId;
    // The whole flow runs within a second or two: plan, execute, verification, then "Done".
    await eventually(() => events(project, id).find((e) => e.pubkey === project.agents.orchestrator && e.content.startsWith("Done:")), 30_000, "the flow to finish");
    const ctx = cli(project, "context", "-a", "coder", "-c", id);
    const messages = ctx.messages as { role: string; content: string }[];
    expect(messages[0]).toEqual({ role: "user", content: "Add a health endpoint" });
    expect(messages.at(-1)).toEqual({ role: "user", content: "[Orchestrator]: carry out the plan" });
    expect(messages.map((m) => m.content)).toEqual([
      "Add a health endpoint",
      "[Orchestrator]: make a plan for the request",
      expect.stringMatching(/^\[Planner\]: Plan: /),
      "[Orchestrator]: carry out the plan",
    ]);
  });

  it("the Director sees the owner named alike everywhere, messages numbered 1, 2, 3 and the relay's echoes apart", async () => {
    const show = spawnSync(process.execPath, [BIN, "show", "-c", id, "--project", project.dir], { encoding: "utf8" });
    const rows = show.stdout.split("\n").filter((l) => /MSG-/.test(l) && !/↳/.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/)[0])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(rows[0]).toContain("owner: Add a health endpoint");
    // --json keeps the log positions, and numbers the messages as listed.
    const detail = cli(project, "show", "-c", id);
    const messages = detail.timeline.filter((e: any) => e.kind === "message");
    expect(messages.map((e: any) => e.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(messages[0].n).toBe(1);
    expect(messages.slice(1).every((e: any) => e.n > 1)).toBe(true);
    const stats = spawnSync(process.execPath, [BIN, "stats", "--project", project.dir], { encoding: "utf8" }).stdout;
    expect(stats).toMatch(/^\s+owner\s+1$/m);
    expect(cli(project, "stats").topCommunicators).toContainEqual({ author: project.owner.pubkey, from: "owner", messages: 1 });
    // Every event here was published by the daemon (the owner's request through `tenexd ask`,
    // the agents' answers): the relay sends each back (once per matching filter), as echoes.
    const { status } = await eventually(() => {
      const s = cli(project, "status");
      return s.status.ingest.echoes >= 8 ? s : undefined;
    }, 10_000, "the relay's echoes");
    expect(status.ingest.duplicates).toBe(0);
  });

  it("a direct message between two agents stays between them: the orchestrator does not run in it", async () => {
    const sent = cli(project, "send", "--from", "planner", "--to", "coder", "-m", "Can you look at the parser?");
    const id: string = sent.conversationId;
    // The coder (the demo's) answers with a completion, which p-tags the orchestrator.
    const answer = await eventually(() => events(project, id).find((e) => e.pubkey === project.agents.coder), 20_000, "the coder's answer");
    expect(answer.tags).toContainEqual(["tool", "complete"]);
    // Who runs on an event is logged with it, in the same flush: nothing was set to run on the answer.
    const log = readLog(project.tenexDir, id);
    expect(log.filter((r) => r.t === "run_pending").map((r) => r.agent)).toEqual([project.agents.coder]);
    expect(log.filter((r) => r.t === "turn_start" || r.t === "phase")).toEqual([]);
    const detail = cli(project, "show", "-c", id);
    expect(detail.turns).toEqual([]);
    expect(detail.conversation.messageCount).toBe(2);
  });
});

describe("an agent answering with its own key, straight on the relay", () => {
  let project: TestProject;
  let daemon: RunningDaemon;
  let reviewerKey: Uint8Array;

  beforeAll(async () => {
    project = makeProject(join(tmp, "direct"), (c) => {
      c.relays = [relay.url];
    });
    // Nothing runs by itself: every message of the test is one it sent.
    useMailboxAgents(project.tenexDir);
    reviewerKey = decode(readFileSync(join(project.tenexDir, "keys/reviewer.nsec"), "utf8").trim()).data as Uint8Array;
    daemon = await startDaemon(project.dir);
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it("is told next time what others said while it was away", async () => {
    const now = Math.floor(Date.now() / 1000);
    const root = project.signAsOwner(11, "Reviewer, is the parser right?", [["title", "Parser"], ["a", project.coordinate], ["p", project.agents.reviewer!]], now);
    expect((await publishRaw(relay.url, root)).accepted).toBe(true);
    await eventually(() => (events(project, root.id).length === 1 ? true : undefined), 10_000, "the root");
    // NDK reply() by the reviewer, signed with its own key, TENEX's triggering-event-id added.
    const answer = finalizeEvent({
      kind: 1111, created_at: now, content: "It misses the --json flag",
      tags: [["e", root.id, relay.url, root.pubkey], ["E", root.id, relay.url, root.pubkey], ["K", "11"], ["P", root.pubkey], ["k", "11"],
        ["p", root.pubkey], ["a", project.coordinate], ["triggering-event-id", root.id]],
    }, reviewerKey) as NostrEvent;
    expect((await publishRaw(relay.url, answer)).accepted).toBe(true);
    await eventually(() => (events(project, root.id).length === 2 ? true : undefined), 10_000, "the reviewer's answer");
    const coderNote = cli(project, "reply", "--from", "coder", "-c", root.id, "-m", "I will add it");
    const again = project.signAsOwner(1111, "Reviewer, and now?", [
      ["e", coderNote.event.id, "", project.agents.coder!], ["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["k", "1111"],
      ["a", project.coordinate], ["p", project.agents.reviewer!],
    ], now);
    expect((await publishRaw(relay.url, again)).accepted).toBe(true);
    await eventually(() => (events(project, root.id).length === 4 ? true : undefined), 10_000, "the owner's question");

    const ctx = cli(project, "context", "-a", "reviewer", "-c", root.id, "--trigger", again.id);
    expect(ctx.messages).toEqual([
      { role: "user", content: "Reviewer, is the parser right?" },
      { role: "assistant", content: "It misses the --json flag" },
      { role: "system", content: `${AWAY_HEADER}\n[Coder]: I will add it` },
      { role: "system", content: NEW_INTERACTION },
      { role: "user", content: "Reviewer, and now?" },
    ]);
  });

  it("finds what a nostr: reference names on the relays and quotes it in the context", async () => {
    const note = project.signAsOwner(1, "The spec: health answers 200 with {\"ok\":true}", []);
    expect((await publishRaw(relay.url, note)).accepted).toBe(true);
    const ref = neventEncode({ id: note.id, author: note.pubkey });
    const root = project.signAsOwner(11, `Reviewer, check it against nostr:${ref}`, [["title", "Spec"], ["a", project.coordinate], ["p", project.agents.reviewer!]]);
    expect((await publishRaw(relay.url, root)).accepted).toBe(true);
    await eventually(() => (events(project, root.id).length === 1 ? true : undefined), 10_000, "the root");
    // Not spawnSync: the relay runs in this process and must answer the daemon's query meanwhile.
    const ctx = await cliAsync(project, "context", "-a", "reviewer", "-c", root.id);
    expect(ctx.messages).toEqual([{
      role: "user", content: `Reviewer, check it against \n[quoted nostr:${ref}]\n> The spec: health answers 200 with {"ok":true}\n`,
    }]);
  });
});
