import { describe, it, expect } from "vitest";
import { participationOf } from "../../src/messaging/participation.js";
import { agentByPubkey, decideTrigger } from "../../src/routing.js";
import type { ProjectInfo } from "../../src/types.js";
import { newKey, sign, testProject } from "../helpers/events.js";

function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const user = newKey();
  const info: ProjectInfo = { ...p.info, whitelist: [...p.info.whitelist, user.pubkey] };
  const planner = p.agents.planner!;
  const coder = p.agents.coder!;
  const slugOf = (d: ReturnType<typeof decideTrigger>) => (d.action === "trigger" ? d.agent.slug : d.action);
  return { p, user, info, planner, coder, slugOf, conv: p.root(p.owner, "Let's build something") };
}

describe("trigger routing", () => {
  it("gives a new conversation to the first p-tagged project agent", () => {
    const s = setup();
    const ev = s.p.root(s.p.owner, "hi", [s.coder.pubkey, s.planner.pubkey]);
    const d = decideTrigger(ev, s.info);
    expect(s.slugOf(d)).toBe("coder");
    expect(d.action === "trigger" && d.addressed.map((a) => a.slug)).toEqual(["coder", "planner"]);
  });

  it("skips unknown p-tags", () => {
    const s = setup();
    const stranger = newKey();
    const ev = s.p.reply(s.p.owner, s.conv, "planner?", [stranger.pubkey, s.planner.pubkey]);
    const d = decideTrigger(ev, s.info);
    expect(s.slugOf(d)).toBe("planner");
    expect(d.action === "trigger" && d.addressed.map((a) => a.pubkey)).toEqual([s.planner.pubkey]);
  });

  it("gives a conversation with no p-tag to the orchestrator", () => {
    const s = setup();
    expect(s.slugOf(decideTrigger(s.p.root(s.p.owner, "anyone?"), s.info))).toBe("orchestrator");
    const task = sign(s.p.owner, 1934, "a task", [["a", s.p.coordinate], ["title", "task"]]);
    expect(s.slugOf(decideTrigger(task, s.info))).toBe("orchestrator");
  });

  it("rejects an author who is neither owner, whitelisted, nor a project agent", () => {
    const s = setup();
    const outsider = newKey();
    expect(decideTrigger(s.p.root(outsider, "hi", [s.coder.pubkey]), s.info)).toEqual({ action: "reject", reason: "not_authorised" });
    expect(decideTrigger(s.p.reply(outsider, s.conv, "hi"), s.info)).toEqual({ action: "reject", reason: "not_authorised" });
  });

  it("rejects events that are not conversation events", () => {
    const s = setup();
    const status = sign(s.p.orchestrator, 24010, "", [["a", s.p.coordinate]]);
    expect(decideTrigger(status, s.info)).toEqual({ action: "reject", reason: "not_a_conversation_event" });
  });

  it("records, never executes, an agent reply p-tagging only itself", () => {
    const s = setup();
    const d = decideTrigger(s.p.reply(s.coder, s.conv, "note to self", [s.coder.pubkey]), s.info);
    expect(d.action).toBe("record");
    expect(d.action === "record" && d.addressed).toEqual([]);
  });

  it("triggers the other agent an agent reply p-tags, skipping the author itself", () => {
    const s = setup();
    const d = decideTrigger(s.p.reply(s.coder, s.conv, "planner, review", [s.coder.pubkey, s.planner.pubkey]), s.info);
    expect(s.slugOf(d)).toBe("planner");
  });

  it("records an agent reply that p-tags no agent", () => {
    const s = setup();
    const d = decideTrigger(s.p.reply(s.planner, s.conv, "thinking out loud"), s.info);
    expect(d).toMatchObject({ action: "record", addressed: [] });
  });

  it("gives a whitelisted user's reply with no p-tag to the orchestrator", () => {
    const s = setup();
    expect(s.slugOf(decideTrigger(s.p.reply(s.user, s.conv, "any update?"), s.info))).toBe("orchestrator");
    expect(s.slugOf(decideTrigger(s.p.reply(s.p.owner, s.conv, "and?"), s.info))).toBe("orchestrator");
  });

  it("triggers the orchestrator on an agent's completion", () => {
    const s = setup();
    const ev = s.p.reply(s.coder, s.conv, "done: tests pass", [s.p.orchestrator.pubkey], [["tool", "complete"], ["phase", "execute"]]);
    const d = decideTrigger(ev, s.info);
    expect(s.slugOf(d)).toBe("orchestrator");
  });

  it("never lets the orchestrator trigger itself", () => {
    const s = setup();
    expect(decideTrigger(s.p.root(s.p.orchestrator, "spawned"), s.info).action).toBe("record");
    expect(decideTrigger(s.p.reply(s.p.orchestrator, s.conv, "routing…"), s.info).action).toBe("record");
  });

  it("finds agents by pubkey", () => {
    const s = setup();
    expect(agentByPubkey(s.info, s.coder.pubkey)?.slug).toBe("coder");
    expect(agentByPubkey(s.info, s.user.pubkey)).toBeUndefined();
  });
});

describe("trigger routing in direct messages and discussions", () => {
  const completion = (s: ReturnType<typeof setup>, by: typeof s.coder, root: ReturnType<typeof s.p.root>) =>
    s.p.reply(by, root, "done", [s.p.orchestrator.pubkey], [["tool", "complete"]]);

  it("keeps the orchestrator out of a direct message: a completion addresses nobody there", () => {
    const s = setup();
    const dm = s.p.root(s.planner, "can you look at the parser?", [s.coder.pubkey]);
    const direct = participationOf(dm, s.info);
    expect(direct).toEqual({ kind: "direct", parties: new Set([s.planner.pubkey, s.coder.pubkey]) });
    expect(s.slugOf(decideTrigger(dm, s.info, direct))).toBe("coder");
    expect(decideTrigger(completion(s, s.coder, dm), s.info, direct)).toMatchObject({ action: "record", addressed: [] });
    // A user's reply addressing nobody, in a conversation of two agents: nobody runs.
    expect(decideTrigger(s.p.reply(s.p.owner, dm, "carry on"), s.info, direct).action).toBe("record");
    // Addressed by name, it takes part.
    expect(s.slugOf(decideTrigger(s.p.reply(s.coder, dm, "orchestrator, a word?", [s.p.orchestrator.pubkey]), s.info, direct))).toBe("orchestrator");
    expect(s.slugOf(decideTrigger(s.p.reply(s.coder, dm, "back to you", [s.planner.pubkey]), s.info, direct))).toBe("planner");
  });

  it("lets the orchestrator act in a direct message it is a party of", () => {
    const s = setup();
    const dm = s.p.root(s.p.orchestrator, "coder, a question", [s.coder.pubkey]);
    const direct = participationOf(dm, s.info);
    expect(s.slugOf(decideTrigger(completion(s, s.coder, dm), s.info, direct))).toBe("orchestrator");
  });

  it("keeps the orchestrator out of a discussion for a role, and in one for all", () => {
    const s = setup();
    const forCoders = s.p.root(s.planner, "coders: the plan?", [], [["scope", "role", "coder"]]);
    const roleScope = participationOf(forCoders, s.info);
    expect(decideTrigger(forCoders, s.info, roleScope).action).toBe("record");
    expect(decideTrigger(completion(s, s.coder, forCoders), s.info, roleScope).action).toBe("record");
    const forAll = s.p.root(s.planner, "everyone: the plan?", [], [["scope", "all"]]);
    expect(s.slugOf(decideTrigger(forAll, s.info, participationOf(forAll, s.info)))).toBe("orchestrator");
  });

  it("leaves a user's conversation to the orchestrator as before", () => {
    const s = setup();
    expect(participationOf(s.conv, s.info)).toEqual({ kind: "team" });
    expect(participationOf(undefined, s.info)).toEqual({ kind: "team" });
    expect(s.slugOf(decideTrigger(completion(s, s.coder, s.conv), s.info, participationOf(s.conv, s.info)))).toBe("orchestrator");
  });
});
