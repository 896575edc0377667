// decideImportedProblems: what an import brings over the escalation limits is flagged as told,
// on top of the flags already kept; what is under them, or already flagged, is not.

import { describe, expect, it } from "vitest";
import { decideImportedProblems } from "../../src/messaging/imported-problems.js";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);

describe("decideImportedProblems", () => {
  it("flags agents over the threshold and looping conversations, keeping the flags before", () => {
    const d = decideImportedProblems({ agents: [B], conversations: [] }, {
      unread: [{ agent: A, unread: 3 }, { agent: B, unread: 9 }, { agent: C, unread: 2 }],
      threshold: 2,
      openTurns: [{ id: A, problems: { stalled: { turnsWithoutProgress: 3 } } }, { id: B, problems: {} }],
    });
    expect(d).toEqual({ flags: { agents: [B, A], conversations: [A] }, agents: [A], conversations: [A] });
  });

  it("flags nothing when nothing is over the limits", () => {
    const d = decideImportedProblems({ agents: [], conversations: [C] }, { unread: [{ agent: A, unread: 2 }], threshold: 2, openTurns: [] });
    expect(d).toEqual({ flags: { agents: [], conversations: [C] }, agents: [], conversations: [] });
  });
});
