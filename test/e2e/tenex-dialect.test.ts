// Today's TENEX clients against the daemon (a child process) on its embedded relay in
// AUTH-required mode (`embeddedRelay.auth: "all"`: reads and writes only after NIP-42 AUTH by one
// of the project's people), with events built exactly as TENEX's encoder builds them
// (helpers/tenex-client.ts), next to the web client's kind 11/1111 (agent-flow.test.ts):
// a kind 1 conversation is answered in kind 1; a conversation started in kind 11 and continued
// in kind 1 stays one, its kind 1 message answered in kind 1. Live operations: while a slow
// command agent (fixtures/agents/sleep-pid.mjs as the coder) works, a 24133 names it; the
// owner's 24134 stop kills its process, the run is recorded as stopped, and a 24133 with no
// agent follows; a stop for another project is refused and counted; a stop for a mailbox agent
// marks its pending work there stopped. A 513 says a conversation's
// title when it starts and its status when it is closed; the 24010 heartbeat names the project's
// people. Last, a relay of the project's own that requires AUTH for everything: what the daemon
// missed is back-filled, a new message comes live, the answer is published there.

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvent } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../daemon/lock-holder.js";
import type { NostrEvent } from "../../src/types.js";
import { eventually, makeProject, projectKeys, readLog, ROOT, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { apiGet, apiStatus, statusEventually } from "../helpers/daemon-api.js";
import { newKey } from "../helpers/events.js";
import { liveRaw, publishRaw, queryRaw, startTestRelay } from "../helpers/relay.js";
import { noteReply, noteRoot, positionalReply, stopRequest } from "../helpers/tenex-client.js";
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

/**
 * The planner's first kind 1 note in the thread, as the daemon's log orders them. Its answer
 * completes to the orchestrator, which may route the thread back to the planner, whose second
 * note then replies to the orchestrator's: the relay lists the newest first, and a slow poll (the
 * full suite under load) once took that one for the answer.
 */
async function plannersFirstNote(rootId: string) {
  const notes = await eventually(async () => {
    const found = (await notesIn(rootId)).filter((e) => e.pubkey === project.agents.planner);
    return found.length > 0 ? found : undefined;
  }, 30_000, "the planner's kind 1 answer");
  // Published only once durable in the log (the outbox): every note found is in it.
  const order = readLog(project.tenexDir, rootId).filter((r) => r.t === "event").map((r) => r.ev.id);
  return notes.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id))[0]!;
}

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-dialect-"));
  project = makeProject(join(tmp, "p"), (c) => {
    c.embeddedRelay = { ...c.embeddedRelay, auth: "all" };
    c.heartbeatSeconds = 1;
  });
  // The coder works slowly: long enough to be seen working, and stopped.
  copyFileSync(join(ROOT, "test/fixtures/agents/sleep-pid.mjs"), join(project.tenexDir, "agents/sleeper.mjs"));
  const agentsFile = join(project.tenexDir, "agents.json");
  const agents = JSON.parse(readFileSync(agentsFile, "utf8"));
  agents.agents.find((a: { slug: string }) => a.slug === "coder").backend = { type: "command", command: ["node", "./agents/sleeper.mjs"], timeoutSeconds: 300 };
  // The reviewer pulls its work through the API (a mailbox agent): a stop marks that work stopped.
  agents.agents.find((a: { slug: string }) => a.slug === "reviewer").backend = { type: "mailbox" };
  writeFileSync(agentsFile, JSON.stringify(agents, null, 2));
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
    const answer = await plannersFirstNote(root.id);
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
    const answer = await plannersFirstNote(root.id);
    expect(tagsNamed(answer, "e")).toEqual([["e", root.id, "", "root"], ["e", next.id, "", "reply"]]);
    const ids = readLog(project.tenexDir, root.id).filter((r) => r.t === "event").map((r) => r.ev.id);
    expect(ids).toEqual(expect.arrayContaining([root.id, next.id, answer.id]));
    expect(existsSync(join(project.tenexDir, "conversations", `${next.id}.jsonl`))).toBe(false);
  });
});

describe("live operations: 24133 while agents work, a 24134 stop ends the work", () => {
  it("24133 names the working agent; the owner's stop kills its process and records the run stopped; 24133 then names none", async () => {
    const live = await liveRaw(url, { kinds: [24133] }, project.owner.sk);
    try {
      const root = noteRoot(keys.owner, project.coordinate, "Coder, take your time", [project.agents.coder!]);
      await publish(root);
      const statusOf = (working: boolean) => live.events.find((e) => tagsNamed(e, "e")[0]?.[1] === root.id &&
        (working ? tagsNamed(e, "p").some((t) => t[1] === project.agents.coder) : tagsNamed(e, "p").length === 0));
      const started = await eventually(() => statusOf(true), 20_000, "a 24133 naming the coder");
      expect(started.pubkey).toBe(project.agents.orchestrator);
      expect(verifyEvent(started as never)).toBe(true);
      expect(tagsNamed(started, "a")).toEqual([["a", project.coordinate]]);
      expect(tagsNamed(started, "P")).toEqual([["P", project.owner.pubkey]]);
      const pidFile = join(project.dir, `sleeper-${root.id}.pid`);
      const pid = await eventually(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined), 20_000, "the coder's process");
      expect(isAlive(pid)).toBe(true);

      // A stop for another project, by the owner: refused, counted, and the coder works on.
      const elsewhere = stopRequest(keys.owner, `31933:${project.owner.pubkey}:another-project`, root.id, [project.agents.coder!]);
      await publish(elsewhere);
      await statusEventually(project.tenexDir, (s) => s.ingest?.rejected?.stop_other_project === 1 || undefined, 10_000, "the refused stop counted");
      expect(isAlive(pid)).toBe(true);
      // A stranger cannot even publish one on this relay: its AUTH is refused.
      const stranger = newKey();
      await expect(publishRaw(url, stopRequest(stranger, project.coordinate, root.id, [project.agents.coder!]), { auth: stranger.sk }))
        .rejects.toThrow(/not one of the project's people/);

      const stop = stopRequest(keys.owner, project.coordinate, root.id, [project.agents.coder!]);
      await publish(stop);
      await eventually(() => (isAlive(pid) ? undefined : true), 10_000, "the coder's process to be gone");
      const run = await eventually(() => readLog(project.tenexDir, root.id).find((r) => r.t === "agent_run" && r.agent === project.agents.coder), 10_000, "the run's record");
      expect(run).toMatchObject({ outcome: "stopped", stoppedBy: { eventId: stop.id, by: project.owner.pubkey }, error: { kind: "stopped" } });
      await eventually(() => statusOf(false), 10_000, "a 24133 naming no agent");
      // The stop itself is not an event of the conversation; nothing else was lost.
      const events = readLog(project.tenexDir, root.id).filter((r) => r.t === "event").map((r) => r.ev.id);
      expect(events).toEqual([root.id]);
      expect((await apiStatus(project.tenexDir)).ingest.rejected.stop_other_project).toBe(1);
    } finally {
      live.close();
    }
  });
});

describe("a stop for a mailbox agent", () => {
  const inbox = async () => JSON.parse((await apiGet(project.tenexDir, "/api/v1/agents/reviewer/inbox")).text) as { total: number; items: { id: string }[] };

  it("marks its pending work in that conversation stopped: out of its inbox, the read mark naming the request", async () => {
    const root = noteRoot(keys.owner, project.coordinate, "Reviewer, look at this later", [project.agents.reviewer!]);
    await publish(root);
    await eventually(async () => ((await inbox()).items.some((i) => i.id === root.id) ? true : undefined), 20_000, "the message in the reviewer's inbox");
    const stop = stopRequest(keys.owner, project.coordinate, root.id, [project.agents.reviewer!]);
    await publish(stop);
    const mark = await eventually(() => readLog(project.tenexDir, root.id).find((r) => r.t === "read" && r.agent === project.agents.reviewer), 10_000, "the reviewer's read mark");
    expect(mark.stoppedBy).toEqual({ eventId: stop.id, by: project.owner.pubkey });
    await eventually(async () => ((await inbox()).items.some((i) => i.id === root.id) ? undefined : true), 10_000, "the message out of the inbox");
  });
});

describe("conversation metadata (513) and the status heartbeat (24010)", () => {
  const metadataOf = async (id: string) =>
    (await queryRaw(url, { kinds: [513], "#e": [id], limit: 50 }, { auth: project.owner.sk })).sort((a, b) => a.created_at - b.created_at);

  it("a 513 gives a new conversation's title, and another its status once it is closed", async () => {
    const root = noteRoot(keys.owner, project.coordinate, "Rename the health endpoint\nand its tests", [project.agents.reviewer!]);
    await publish(root);
    const first = await eventually(async () => (await metadataOf(root.id))[0], 20_000, "a 513 for the new conversation");
    expect(first.pubkey).toBe(project.agents.orchestrator);
    expect(verifyEvent(first as never)).toBe(true);
    expect(first.tags).toEqual([["e", root.id], ["title", "Rename the health endpoint"], ["status-label", "open"], ["a", project.coordinate]]);
    // The owner closes it from a kind 1 client.
    await publish(noteReply(keys.owner, project.coordinate, root.id, root.id, "done here", [], [["status", "closed"]]));
    const closed = await eventually(async () => (await metadataOf(root.id)).find((e) => tagsNamed(e, "status-label")[0]?.[1] === "closed"), 20_000, "a 513 saying closed");
    expect(tagsNamed(closed, "title")).toEqual([["title", "Rename the health endpoint"]]);
  });

  it("the 24010 heartbeat names the project, its people and its agents", async () => {
    const live = await liveRaw(url, { kinds: [24010] }, project.owner.sk);
    try {
      const beat = await eventually(() => live.events.find((e) => tagsNamed(e, "a")[0]?.[1] === project.coordinate), 15_000, "a heartbeat");
      expect(beat.pubkey).toBe(project.agents.orchestrator);
      expect(tagsNamed(beat, "p")).toEqual([["p", project.owner.pubkey]]);
      expect(tagsNamed(beat, "agent").map((t) => t[2]).sort()).toEqual(["coder", "orchestrator", "planner", "reviewer"]);
    } finally {
      live.close();
    }
  });
});

describe("a relay of its own that requires AUTH for reads and writes: back-fill, live and publish", () => {
  it("a daemon back-fills a kind 1 thread written before it started (a positional reply without `a` included), takes the next live and publishes its answer there", async () => {
    const other = makeProject(join(tmp, "own-relay"));
    const otherKeys = projectKeys(other);
    const own = await startTestRelay({
      guard: { maxEventBytes: 131_072, access: { auth: "all", members: new Set([other.owner.pubkey, ...Object.values(other.agents)]) } },
    });
    const file = join(other.tenexDir, "config.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), relays: [own.url] }, null, 2));
    let d: RunningDaemon | undefined;
    try {
      const send = async (ev: NostrEvent) => expect(await publishRaw(own.url, ev, { auth: other.owner.sk })).toEqual({ accepted: true, message: "" });
      const missed = noteRoot(otherKeys.owner, other.coordinate, "Written while the daemon was down", [other.agents.planner!]);
      // An old client: positional `e`, no `a`; it p-tags the agent it answers (NIP-10 reply).
      const missedReply = positionalReply(otherKeys.owner, missed.id, missed.id, "and this, from an old client", [other.agents.planner!]);
      await send(missed);
      await send(missedReply);
      d = await startDaemon(other.dir);
      const events = () => (existsSync(join(other.tenexDir, "conversations", `${missed.id}.jsonl`)) ? readLog(other.tenexDir, missed.id).filter((r) => r.t === "event") : []);
      // Written in the second the daemon started, the root is not history: the planner may answer
      // it before the reply (deferred until its root is in) is taken. The thread's own two, in order.
      const thread = () => events().map((r) => r.ev.id).filter((id) => id === missed.id || id === missedReply.id);
      await eventually(() => (thread().length >= 2 ? true : undefined), 20_000, "the back-filled thread");
      expect(thread()).toEqual([missed.id, missedReply.id]);

      const live = noteRoot(otherKeys.owner, other.coordinate, "Planner, are you there?", [other.agents.planner!]);
      await send(live);
      const answer = await eventually(async () => (await queryRaw(own.url, { kinds: [1], "#e": [live.id] }, { auth: other.owner.sk })).find((e) => e.pubkey === other.agents.planner), 30_000, "the planner's answer on the relay");
      expect(tagsNamed(answer, "e")[0]).toEqual(["e", live.id, "", "root"]);
    } finally {
      await d?.stop();
      await own.close();
    }
  });
});
