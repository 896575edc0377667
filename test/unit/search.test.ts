import { describe, it, expect } from "vitest";
import { decideAddEvent, decideArchive, stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { decidePhaseChange } from "../../src/phases.js";
import type { NewRecord } from "../../src/records.js";
import { matchesCriteria } from "../../src/search.js";
import { testProject } from "../helpers/events.js";

const T0 = 1_700_000_000;

function setup() {
  const p = testProject();
  const root = p.root(p.owner, "Weather CLI in TypeScript", [], [], T0);
  const conv: Conversation = emptyConversation(root.id, p.coordinate);
  const commit = (recs: readonly NewRecord[]) => {
    for (const r of stamp(conv, recs)) applyRecord(conv, r);
  };
  commit(decideAddEvent(conv, root, "relay", 1));
  commit(decideAddEvent(conv, p.reply(p.agents.planner!, root, "plan", [], [], root, T0 + 60), "relay", 2));
  return { p, conv, commit };
}

describe("matchesCriteria", () => {
  it("matches every conversation when no criterion is given", () => {
    expect(matchesCriteria(setup().conv, {})).toBe(true);
  });

  it("matches the title as a case-insensitive substring", () => {
    const { conv } = setup();
    expect(matchesCriteria(conv, { title: "weather cli" })).toBe(true);
    expect(matchesCriteria(conv, { title: "TYPESCRIPT" })).toBe(true);
    expect(matchesCriteria(conv, { title: "rust" })).toBe(false);
  });

  it("matches the current phase", () => {
    const { p, conv, commit } = setup();
    expect(matchesCriteria(conv, { phase: "chat" })).toBe(true);
    commit([decidePhaseChange(conv.phase, { to: "plan", by: p.agents.planner!.pubkey, message: "m", reason: "r" }, 3)]);
    expect(matchesCriteria(conv, { phase: "plan" })).toBe(true);
    expect(matchesCriteria(conv, { phase: "chat" })).toBe(false);
  });

  it("bounds createdAt inclusively with from and to (unix seconds)", () => {
    const { conv } = setup();
    expect(matchesCriteria(conv, { from: T0, to: T0 })).toBe(true);
    expect(matchesCriteria(conv, { from: T0 + 1 })).toBe(false);
    expect(matchesCriteria(conv, { to: T0 - 1 })).toBe(false);
    // createdAt is the root's, not the newest event's.
    expect(matchesCriteria(conv, { from: T0 + 30 })).toBe(false);
  });

  it("matches archived state and participants", () => {
    const { p, conv, commit } = setup();
    expect(matchesCriteria(conv, { archived: false })).toBe(true);
    commit(decideArchive(conv, 4));
    expect(matchesCriteria(conv, { archived: true })).toBe(true);
    expect(matchesCriteria(conv, { archived: false })).toBe(false);
    expect(matchesCriteria(conv, { participant: p.agents.planner!.pubkey })).toBe(true);
    expect(matchesCriteria(conv, { participant: p.agents.coder!.pubkey })).toBe(false);
    expect(matchesCriteria(conv, { archived: true, participant: p.owner.pubkey, title: "weather" })).toBe(true);
  });
});
