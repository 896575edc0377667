// Both dialects through the real route (log, index, verifier): a conversation started in kind 11
// and continued in kind 1 (and the other way round) stays one conversation; a stranger's kind 1
// notes are dropped on their tags, before any signature is checked, and leave nothing behind.

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import type { NostrEvent } from "../../src/types.js";
import { newKey, sign, testProject } from "../helpers/events.js";
import { noteReply, noteRoot, positionalReply } from "../helpers/tenex-client.js";
import { openRoute } from "../helpers/route-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(project: ReturnType<typeof testProject>) {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-dialects-"));
  dirs.push(dir);
  return { dir, ...(await openRoute(dir, project.info, { logDir: join(dir, "conversations") })) };
}

const eventIds = async (log: FileConversationLog, id: string) =>
  (await log.read(id)).flatMap((r) => (r.t === "event" ? [r.ev.id] : []));

describe("both dialects in one conversation", () => {
  it("started in kind 11 and continued in kind 1 (marked, positional, without the `a` tag) stays one", async () => {
    const p = testProject();
    const planner = p.agents.planner!;
    const d = await open(p);
    const root = p.root(p.owner, "Health endpoint", [planner.pubkey]);
    const webReply = p.reply(planner, root, "outline follows");
    const tuiReply = noteReply(p.owner, p.coordinate, root.id, webReply.id, "go on", [planner.pubkey]);
    const oldClient = positionalReply(p.owner, root.id, tuiReply.id, "and add tests");
    for (const ev of [root, webReply, tuiReply, oldClient]) {
      expect(await d.route.ingest(ev)).toMatchObject({ status: "accepted", conversationId: root.id });
    }
    expect(await eventIds(d.log, root.id)).toEqual([root.id, webReply.id, tuiReply.id, oldClient.id]);
    await d.close();
  });

  it("started in kind 1 and continued in kind 1111 stays one", async () => {
    const p = testProject();
    const planner = p.agents.planner!;
    const d = await open(p);
    const root = noteRoot(p.owner, p.coordinate, "Health endpoint", [planner.pubkey]);
    const answer = noteReply(planner, p.coordinate, root.id, root.id, "on it");
    const web = p.reply(p.owner, root, "from the web client", [], [], answer);
    for (const ev of [root, answer, web]) expect(await d.route.ingest(ev)).toMatchObject({ status: "accepted", conversationId: root.id });
    expect(await eventIds(d.log, root.id)).toEqual([root.id, answer.id, web.id]);
    await d.close();
  });
});

describe("a stranger's kind 1", () => {
  it("is dropped on its tags: no signature checked, nothing stored, counted as ignored", async () => {
    const p = testProject();
    const d = await open(p);
    const stranger = newKey();
    const forged = (ev: NostrEvent) => ({ ...ev, sig: "0".repeat(128) });
    const notes = [
      sign(stranger, 1, "gm"),
      forged(sign(stranger, 1, "gm again")),
      // Our own owner's ordinary notes: the live subscription of a relay that ignores tag filters sends them all.
      sign(p.owner, 1, "lunch was good"),
      sign(p.owner, 1, "a reply in someone else's thread", [["e", sign(stranger, 1, "x").id, "", "root"]]),
      sign(stranger, 1, "another project", [["a", `31933:${stranger.pubkey}:theirs`]]),
    ];
    for (const ev of notes) expect((await d.route.ingest(ev)).status).toBe("ignored");
    expect(d.checked).toEqual([]);
    expect(d.counters.snapshot()).toMatchObject({ accepted: 0, rejectedTotal: 0, ignored: { no_project_tag: 4, other_project: 1 } });
    const logs = join(d.dir, "conversations");
    expect(existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith(".jsonl")) : []).toEqual([]);
    await d.close();
  });

  it("tagged with the project is checked like any event: a stranger is refused as not authorised", async () => {
    const p = testProject();
    const d = await open(p);
    const ev = noteRoot(newKey(), p.coordinate, "let me in");
    expect(await d.route.ingest(ev)).toMatchObject({ status: "rejected", reason: "not_authorised" });
    expect(d.checked).toEqual([ev.id]);
    await d.close();
  });
});
