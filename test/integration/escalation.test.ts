// Escalation to the owner: once per problem, again only after recovery and relapse, and never a
// message that sets an agent to work; and not told again after a restart (real state files).

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finalizeEvent } from "nostr-tools/pure";
import { afterEach, describe, expect, it } from "vitest";
import { Escalator, type StalledConversation } from "../../daemon/engine/loops/escalation.js";
import { ESCALATION_FILE, escalationState } from "../../daemon/engine/loops/escalation-state.js";
import { initialTurnsState, applyTurnRecord } from "../../src/turns.js";
import { detectRoutingProblems } from "../../src/routing-health.js";
import { decideTrigger } from "../../src/routing.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

/** Without `tenexDir` the flags live in memory only; with it, `restart()` builds a new Escalator over the same files. */
function setup(tenexDir?: string) {
  const p = testProject();
  const unread = new Map<string, number>();
  const open: StalledConversation[] = [];
  const published: NostrEvent[] = [];
  const problems: string[] = [];
  const build = () => new Escalator({
    coordinate: p.coordinate, owner: p.owner.pubkey, agents: p.info.agents, threshold: 10,
    unreadCount: (pk) => unread.get(pk) ?? 0,
    conversations: async () => open,
    publish: async (ev: UnsignedEvent) => published.push(finalizeEvent(ev, p.orchestrator.sk) as NostrEvent),
    nowSecs: () => 1_760_000_000,
    ...(tenexDir ? { state: escalationState(tenexDir, (d) => problems.push(d)) } : {}),
  });
  const s = { p, unread, open, published, problems, escalator: build(), restart: () => void (s.escalator = build()) };
  return s;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-escalation-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Turns that all timed out: a stalled conversation. */
function stalledTurns(agent: string) {
  const turns = initialTurnsState();
  for (let i = 1; i <= 3; i++) {
    applyTurnRecord(turns, { t: "turn_start", n: i * 2 - 1, at: i, turnId: `t${i}`, phase: "execute", agents: [agent], reason: "go" });
    applyTurnRecord(turns, { t: "turn_end", n: i * 2, at: i, turnId: `t${i}`, status: "timeout" });
  }
  applyTurnRecord(turns, { t: "turn_start", n: 7, at: 9, turnId: "t4", phase: "execute", agents: [agent], reason: "go" });
  return turns;
}

describe("Escalator", () => {
  it("tells the owner once when an agent falls behind, and again only after it recovered and relapsed", async () => {
    const s = setup();
    const coder = s.p.agents.coder!.pubkey;
    s.unread.set(coder, 11);
    await s.escalator.check();
    await s.escalator.check();
    expect(s.published).toHaveLength(1);
    const [msg] = s.published;
    expect(msg!.kind).toBe(11);
    expect(msg!.tags).toContainEqual(["p", s.p.owner.pubkey]);
    expect(msg!.tags).toContainEqual(["a", s.p.coordinate]);
    expect(msg!.content).toContain("coder has 11 unread");
    // Written by the orchestrator and addressing no agent: recorded, never executed.
    expect(decideTrigger(msg!, s.p.info).action).toBe("record");

    s.unread.set(coder, 9); // still above the clear level (8): stays flagged, no new message
    await s.escalator.check();
    s.unread.set(coder, 12);
    await s.escalator.check();
    expect(s.published).toHaveLength(1);

    s.unread.set(coder, 3); // recovered
    await s.escalator.check();
    expect(s.escalator.flaggedAgents.size).toBe(0);
    s.unread.set(coder, 20); // relapse
    await s.escalator.check();
    expect(s.published).toHaveLength(2);
  });

  it("replies once in a stalled conversation, addressed to the owner, and forgets it when its turn closes", async () => {
    const s = setup();
    const coder = s.p.agents.coder!.pubkey;
    const root = s.p.root(s.p.owner, "build it");
    const turns = stalledTurns(coder);
    const problems = detectRoutingProblems(turns, { repeatThreshold: 3, stallThreshold: 3 });
    expect(problems.stalled).toBeDefined();
    s.open.push({ id: root.id, title: "build it", phase: "execute", root, problems });
    await s.escalator.check();
    await s.escalator.check();
    expect(s.published).toHaveLength(1);
    const [msg] = s.published;
    expect(msg!.kind).toBe(1111);
    expect(msg!.tags).toContainEqual(["E", root.id, "", root.pubkey]);
    expect(msg!.tags).toContainEqual(["p", s.p.owner.pubkey]);
    expect(msg!.content).toContain("not making progress");
    expect(decideTrigger(msg!, s.p.info).action).toBe("record");

    s.open.length = 0;
    await s.escalator.check();
    expect(s.escalator.flaggedConversations.size).toBe(0);
  });

  it("does not tell the owner again after a restart while the agent is still behind, but does after it recovered and relapsed", async () => {
    const dir = tempDir();
    const s = setup(dir);
    const coder = s.p.agents.coder!.pubkey;
    s.unread.set(coder, 11);
    await s.escalator.check();
    expect(s.published).toHaveLength(1);
    // Private to the project's owner, like the keys.
    expect(statSync(join(dir, ESCALATION_FILE)).mode & 0o777).toBe(0o600);

    for (let i = 0; i < 3; i++) {
      s.restart();
      expect([...s.escalator.flaggedAgents]).toEqual([coder]);
      s.unread.set(coder, 11 + i);
      await s.escalator.check();
    }
    expect(s.published).toHaveLength(1);

    s.unread.set(coder, 3); // recovered: the clear is saved too
    await s.escalator.check();
    s.restart();
    expect(s.escalator.flaggedAgents.size).toBe(0);
    s.unread.set(coder, 20); // relapse after the restart
    await s.escalator.check();
    expect(s.published).toHaveLength(2);
    expect(s.published[1]!.content).toContain("coder has 20 unread");
    expect(s.problems).toEqual([]);
  });

  it("does not reply again in a conversation still stalled after a restart, but does once its turn closed and it stalled again", async () => {
    const dir = tempDir();
    const s = setup(dir);
    const coder = s.p.agents.coder!.pubkey;
    const root = s.p.root(s.p.owner, "build it");
    const problems = detectRoutingProblems(stalledTurns(coder), { repeatThreshold: 3, stallThreshold: 3 });
    const stalled: StalledConversation = { id: root.id, title: "build it", phase: "execute", root, problems };
    s.open.push(stalled);
    await s.escalator.check();
    s.restart();
    await s.escalator.check();
    expect(s.published).toHaveLength(1);

    s.open.length = 0; // its turn closed
    await s.escalator.check();
    s.restart();
    expect(s.escalator.flaggedConversations.size).toBe(0);
    s.open.push(stalled); // and it stalls again
    await s.escalator.check();
    expect(s.published).toHaveLength(2);
    expect(s.published.every((e) => e.kind === 1111)).toBe(true);
  });

  it.each([["not JSON", "{ not json"], ["not the state's shape", '{"v":1,"agents":"coder"}']])("starts with no flags, and says so, when the state file is %s; the next escalation replaces it", async (_, content) => {
    const dir = tempDir();
    writeFileSync(join(dir, ESCALATION_FILE), content);
    const s = setup(dir);
    expect(s.problems).toHaveLength(1);
    expect(s.problems[0]).toContain(ESCALATION_FILE);
    const coder = s.p.agents.coder!.pubkey;
    s.unread.set(coder, 11);
    await s.escalator.check();
    expect(s.published).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, ESCALATION_FILE), "utf8"))).toMatchObject({ agents: [coder], conversations: [] });
    s.restart();
    await s.escalator.check();
    expect(s.published).toHaveLength(1);
  });
});
