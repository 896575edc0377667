// Escalation to the owner: once per problem, again only after recovery and relapse, and never a
// message that sets an agent to work.

import { finalizeEvent } from "nostr-tools/pure";
import { describe, expect, it } from "vitest";
import { Escalator, type StalledConversation } from "../../daemon/escalation.js";
import { initialTurnsState, applyTurnRecord } from "../../src/turns.js";
import { detectRoutingProblems } from "../../src/routing-health.js";
import { decideTrigger } from "../../src/routing.js";
import type { NostrEvent, UnsignedEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

function setup() {
  const p = testProject();
  const unread = new Map<string, number>();
  const open: StalledConversation[] = [];
  const published: NostrEvent[] = [];
  const escalator = new Escalator({
    coordinate: p.coordinate, owner: p.owner.pubkey, agents: p.info.agents, threshold: 10,
    unreadCount: (pk) => unread.get(pk) ?? 0,
    conversations: async () => open,
    publish: async (ev: UnsignedEvent) => published.push(finalizeEvent(ev, p.orchestrator.sk) as NostrEvent),
    nowSecs: () => 1_760_000_000,
  });
  return { p, unread, open, published, escalator };
}

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
});
