import { describe, it, expect } from "vitest";
import { isRecipient, recipientsOf, scopeRecipients } from "../../src/messaging/index.js";
import { mentionedPubkeys, scopeOf } from "../../src/tags.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "../../src/types.js";
import { newKey, testProject } from "../helpers/events.js";

const T = 1_700_000_000;

/** Two coders share the role "coder"; the planner and the orchestrator have their own roles. */
function setup() {
  const p = testProject({ agents: ["planner", "coder", "coder2"] });
  const info: ProjectInfo = { ...p.info, agents: p.info.agents.map((a) => (a.slug === "coder2" ? { ...a, role: "coder" } : a)) };
  const pk = (slug: string) => info.agents.find((a) => a.slug === slug)!.pubkey;
  return { p, info, pk, planner: p.agents.planner!, coder: p.agents.coder!, coder2: p.agents.coder2! };
}

const addressing = (ev: NostrEvent, convScope = scopeOf(ev.tags)) => ({
  author: ev.pubkey, pTags: mentionedPubkeys(ev.tags), ...(convScope ? { scope: convScope } : {}),
});

describe("discussion scope", () => {
  it("a role discussion goes to every agent of that role, not the author", () => {
    const s = setup();
    const root = s.p.root(s.planner, "coders: API review", [], [["scope", "role", "coder"]], T);
    expect(recipientsOf(root, s.info).sort()).toEqual([s.coder.pubkey, s.coder2.pubkey].sort());
    const fromCoder = s.p.root(s.coder, "coders: sync", [], [["scope", "role", "coder"]], T);
    expect(recipientsOf(fromCoder, s.info)).toEqual([s.coder2.pubkey]);
  });

  it("an all-scope discussion goes to every agent but the author", () => {
    const s = setup();
    const root = s.p.root(s.planner, "everyone: standup", [], [["scope", "all"]], T);
    expect(new Set(recipientsOf(root, s.info))).toEqual(new Set([s.pk("orchestrator"), s.coder.pubkey, s.coder2.pubkey]));
    expect(scopeRecipients({ kind: "all" }, s.info.agents, s.planner.pubkey)).not.toContain(s.planner.pubkey);
  });

  it("adds p-tagged pubkeys (users too), once each, never the author", () => {
    const s = setup();
    const user = newKey();
    const root = s.p.root(s.planner, "coders + user", [user.pubkey, s.coder.pubkey, s.planner.pubkey], [["scope", "role", "coder"]], T);
    expect(recipientsOf(root, s.info)).toEqual([user.pubkey, s.coder.pubkey, s.coder2.pubkey]);
  });

  it("a reply in a scoped discussion reaches the scope through the conversation's scope", () => {
    const s = setup();
    const root = s.p.root(s.planner, "coders: review", [], [["scope", "role", "coder"]], T);
    const reply = s.p.reply(s.coder, root, "looks good", [], [], root, T + 1);
    expect(recipientsOf(reply, s.info)).toEqual([]);
    expect(recipientsOf(reply, s.info, scopeOf(root.tags))).toEqual([s.coder2.pubkey]);
  });

  it("a plain message goes to its p-tags only", () => {
    const s = setup();
    const root = s.p.root(s.planner, "coder, a question", [s.coder.pubkey], [], T);
    expect(recipientsOf(root, s.info)).toEqual([s.coder.pubkey]);
    expect(isRecipient(s.info.agents.find((a) => a.slug === "coder2")!, addressing(root))).toBe(false);
  });

  it("a late joiner of the role sees the whole discussion, evaluated at query time", () => {
    const s = setup();
    const root = s.p.root(s.planner, "coders: design", [], [["scope", "role", "coder"]], T);
    const scope = scopeOf(root.tags);
    const history = [
      root,
      s.p.reply(s.coder, root, "idea A", [], [], root, T + 1),
      s.p.reply(s.coder2, root, "idea B", [], [], root, T + 2),
    ];
    const storedAtIngest = history.map((ev) => recipientsOf(ev, s.info, scope));

    const late = newKey();
    const joiner: AgentInfo = { slug: "coder3", name: "Coder3", pubkey: late.pubkey, role: "coder", isOrchestrator: false };
    // Recipients stored at ingest could not know about the joiner…
    expect(storedAtIngest.flat()).not.toContain(late.pubkey);
    // …the query-time rule does: every message of the discussion is for it.
    expect(history.map((ev) => isRecipient(joiner, addressing(ev, scope)))).toEqual([true, true, true]);
    const info: ProjectInfo = { ...s.info, agents: [...s.info.agents, joiner] };
    expect(recipientsOf(history[1]!, info, scope)).toContain(late.pubkey);
  });

  it("never makes an author the recipient of its own message", () => {
    const s = setup();
    const coder = s.info.agents.find((a) => a.slug === "coder")!;
    const root = s.p.root(s.coder, "coders", [s.coder.pubkey], [["scope", "role", "coder"]], T);
    expect(isRecipient(coder, addressing(root))).toBe(false);
    expect(recipientsOf(root, s.info)).not.toContain(s.coder.pubkey);
  });
});
