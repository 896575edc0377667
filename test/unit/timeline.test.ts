import { describe, expect, it } from "vitest";
import { authorLabel, authorName } from "../../src/author-names.js";
import { inConversationOrder } from "../../src/timeline.js";
import { conversationOf } from "../helpers/conversation.js";
import { newKey, testProject } from "../helpers/events.js";

const T = 1_700_000_000;

describe("timeline in the conversation's order", () => {
  it("lists messages as the conversation orders them, each state change after the messages logged before it", () => {
    const p = testProject({ agents: ["planner"] });
    const root = p.root(p.owner, "root", [], [], T);
    const early = p.reply(p.agents.planner!, root, "early", [], [], root, T);
    const later = p.reply(p.owner, root, "later", [], [], early, T + 1);
    // The reply arrives before its root (n=1, root n=2), a phase change is logged (n=3), then `later` (n=4).
    const conv = conversationOf(root.id, [early, root, later]);
    const n = (ev: typeof root) => conv.eventsById.get(ev.id)!.n;
    const entries = [
      { n: n(early), id: early.id }, { n: n(root), id: root.id }, { n: 2.5, id: undefined }, { n: n(later), id: later.id },
    ].sort((a, b) => a.n - b.n);
    const ordered = inConversationOrder(conv, entries, (e) => e.id);
    expect(ordered.map((e) => e.id ?? "phase")).toEqual([root.id, early.id, "phase", later.id]);
  });
});

describe("author names", () => {
  it("names agents by slug or name, the owner as owner, whitelisted users alike everywhere", () => {
    const p = testProject({ agents: ["planner"] });
    const user = newKey();
    const stranger = newKey();
    const info = { ...p.info, whitelist: [...p.info.whitelist, user.pubkey] };
    expect([authorLabel(info, p.agents.planner!.pubkey), authorName(info, p.agents.planner!.pubkey)]).toEqual(["planner", "Planner"]);
    expect([authorLabel(info, p.owner.pubkey), authorName(info, p.owner.pubkey)]).toEqual(["owner", "Owner"]);
    expect(authorLabel(info, user.pubkey)).toBe(`user ${user.pubkey.slice(0, 8)}`);
    expect(authorName(info, user.pubkey)).toBe(`user ${user.pubkey.slice(0, 8)}`);
    expect(authorLabel(info, stranger.pubkey)).toBe(stranger.pubkey.slice(0, 8));
  });
});
