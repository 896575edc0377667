// Today's TENEX clients against the daemon (a child process) on its embedded relay in
// AUTH-required mode (`embeddedRelay.auth: "all"`: reads and writes only after NIP-42 AUTH by one
// of the project's people), with events built exactly as TENEX's encoder builds them
// (helpers/tenex-client.ts), next to the web client's kind 11/1111 (agent-flow.test.ts):
// a kind 1 conversation is answered in kind 1; a conversation started in kind 11 and continued
// in kind 1 stays one, its kind 1 message answered in kind 1.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvent } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NostrEvent } from "../../src/types.js";
import { eventually, makeProject, projectKeys, readLog, ROOT, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { publishRaw, queryRaw } from "../helpers/relay.js";
import { noteReply, noteRoot } from "../helpers/tenex-client.js";
import type { ProjectKeys } from "../helpers/events.js";

let tmp: string;
let project: TestProject;
let keys: ProjectKeys;
let daemon: RunningDaemon;
let url: string;

const tagsNamed = (ev: NostrEvent, name: string) => ev.tags.filter((t) => t[0] === name);

/** Published as the owner, after AUTH (the relay refuses EVENT before it). */
async function publish(ev: NostrEvent): Promise<void> {
  expect(await publishRaw(url, ev, { auth: project.owner.sk })).toEqual({ accepted: true, message: "" });
}

/** The kind 1 notes in a conversation, read back after AUTH. */
const notesIn = (rootId: string) => queryRaw(url, { kinds: [1], "#e": [rootId], limit: 500 }, { auth: project.owner.sk });

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-dialect-"));
  project = makeProject(join(tmp, "p"), (c) => {
    c.embeddedRelay = { ...c.embeddedRelay, auth: "all" };
  });
  keys = projectKeys(project);
  daemon = await startDaemon(project.dir);
  url = daemon.ready.relays[0]!;
}, 30_000);

afterAll(async () => {
  await daemon?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("today's TENEX dialect (kind 1), on a relay that requires AUTH for everything", () => {
  it("the relay refuses an EVENT without AUTH (the precondition of every test here)", async () => {
    const ev = noteRoot(keys.owner, project.coordinate, "no auth");
    expect((await publishRaw(url, ev)).accepted).toBe(false);
  });

  it("a kind 1 root addressed to an agent is answered in kind 1, with NIP-10 marks, the project and today's completion", async () => {
    const root = noteRoot(keys.owner, project.coordinate, "Planner, outline a health endpoint", [project.agents.planner!]);
    await publish(root);
    const answer = await eventually(async () => (await notesIn(root.id)).find((e) => e.pubkey === project.agents.planner), 30_000, "the planner's kind 1 answer");
    expect(verifyEvent(answer as never)).toBe(true);
    expect(tagsNamed(answer, "e")).toEqual([["e", root.id, "", "root"], ["e", root.id, "", "reply"]]);
    expect(tagsNamed(answer, "a")).toEqual([["a", project.coordinate]]);
    // The demo planner completes: as today's TENEX writes a completion, to the orchestrator.
    expect(tagsNamed(answer, "status")).toEqual([["status", "completed"]]);
    expect(tagsNamed(answer, "p")).toEqual([["p", project.agents.orchestrator]]);
    expect(tagsNamed(answer, "E")).toEqual([]);
    const ids = readLog(project.tenexDir, root.id).filter((r) => r.t === "event").map((r) => r.ev.id);
    expect(ids.slice(0, 2)).toEqual([root.id, answer.id]);
  });

  it("a conversation started in kind 11 (web client) and continued in kind 1 stays one; the kind 1 message is answered in kind 1", async () => {
    const root = project.signAsOwner(11, "Coder, a question", [["a", project.coordinate], ["title", "A question"]]);
    await publish(root);
    await eventually(() => (existsSync(join(project.tenexDir, "conversations", `${root.id}.jsonl`)) ? true : undefined), 20_000, "the kind 11 root in its log");
    const next = noteReply(keys.owner, project.coordinate, root.id, root.id, "Planner, plan it", [project.agents.planner!]);
    await publish(next);
    const answer = await eventually(async () => (await notesIn(root.id)).find((e) => e.pubkey === project.agents.planner), 30_000, "the planner's kind 1 answer");
    expect(tagsNamed(answer, "e")).toEqual([["e", root.id, "", "root"], ["e", next.id, "", "reply"]]);
    const ids = readLog(project.tenexDir, root.id).filter((r) => r.t === "event").map((r) => r.ev.id);
    expect(ids).toEqual(expect.arrayContaining([root.id, next.id, answer.id]));
    expect(existsSync(join(project.tenexDir, "conversations", `${next.id}.jsonl`))).toBe(false);
  });
});
