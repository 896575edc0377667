import { describe, it, expect } from "vitest";
import { decideAck, decideAddEvent, decideRead, stamp } from "../../src/conversation.js";
import { applyRecords, emptyConversation } from "../../src/conversation-reducer.js";
import type { Conversation, StoredEvent } from "../../src/conversation-state.js";
import { DomainError } from "../../src/errors.js";
import {
  compareInbox, formatConversationAlias, formatMessageAlias, isExpired, isUnread, parseAlias, priorityRank,
} from "../../src/messaging/index.js";
import type { NewRecord } from "../../src/records.js";
import { expirationOf, priorityOf } from "../../src/tags.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

const T = 1_700_000_000;

function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const root = p.root(p.owner, "inbox", [], [], T);
  const conv = emptyConversation(root.id);
  const commit = (recs: NewRecord[]) => applyRecords(conv, stamp(conv, recs));
  const add = (ev: NostrEvent) => commit(decideAddEvent(conv, ev, "relay", ev.created_at * 1000));
  add(root);
  return { p, root, conv, commit, add, planner: p.agents.planner!, coder: p.agents.coder! };
}

const stored = (conv: Conversation, ev: NostrEvent) => conv.eventsById.get(ev.id)!;
const inboxItem = (s: StoredEvent) => {
  const priority = priorityOf(s.ev.tags);
  return { ...(priority ? { priority } : {}), createdAt: s.ev.created_at, n: s.n, id: s.ev.id };
};
const unreadFor = (conv: Conversation, agent: string, nowSecs: number) => {
  const view = conv.views.get(agent);
  return conv.events.filter((s) => {
    const expiresAt = expirationOf(s.ev.tags);
    const msg = { id: s.ev.id, n: s.n, author: s.ev.pubkey, ...(expiresAt !== undefined ? { expiresAt } : {}) };
    return isUnread(msg, agent, view?.readSeq ?? 0, view?.acks ?? new Set(), nowSecs);
  }).map((s) => s.ev.content);
};

describe("inbox priority", () => {
  it("ranks critical, high, medium (or none), low", () => {
    expect(["critical", "high", "medium", undefined, "low"].map((p) => priorityRank(p as never))).toEqual([0, 1, 2, 2, 3]);
  });

  it("orders by priority first, then oldest first", () => {
    const s = setup();
    const evs = [
      s.p.reply(s.planner, s.root, "low old", [s.coder.pubkey], [["priority", "low"]], s.root, T + 1),
      s.p.reply(s.planner, s.root, "none", [s.coder.pubkey], [], s.root, T + 2),
      s.p.reply(s.planner, s.root, "critical new", [s.coder.pubkey], [["priority", "critical"]], s.root, T + 9),
      s.p.reply(s.planner, s.root, "high", [s.coder.pubkey], [["priority", "high"]], s.root, T + 5),
      s.p.reply(s.planner, s.root, "medium older", [s.coder.pubkey], [["priority", "medium"]], s.root, T + 1),
    ];
    evs.forEach(s.add);
    const order = evs.map((ev) => inboxItem(stored(s.conv, ev))).sort(compareInbox)
      .map((i) => s.conv.eventsById.get(i.id)!.ev.content);
    expect(order).toEqual(["critical new", "high", "medium older", "none", "low old"]);
  });

  it("keeps arrival order for two messages of the same priority in the same second", () => {
    const s = setup();
    const first = s.p.reply(s.planner, s.root, "first", [], [], s.root, T + 3);
    const second = s.p.reply(s.planner, s.root, "second", [], [], s.root, T + 3);
    // Arrival order, whatever their ids say.
    s.add(first);
    s.add(second);
    const items = [second, first].map((ev) => inboxItem(stored(s.conv, ev)));
    expect(items.sort(compareInbox).map((i) => i.id)).toEqual([first.id, second.id]);
  });
});

describe("aliases", () => {
  it("formats conversations with at least 4 digits", () => {
    expect(formatConversationAlias(1)).toBe("CONV-0001");
    expect(formatConversationAlias(9999)).toBe("CONV-9999");
  });

  it("keeps growing past 9999, with no cap", () => {
    expect(formatConversationAlias(10_000)).toBe("CONV-10000");
    expect(formatMessageAlias(1_234_567, "low")).toBe("MSG-L-1234567");
    expect(parseAlias("CONV-10000")).toEqual({ kind: "conversation", seq: 10_000 });
  });

  it("puts the priority letter in message aliases, M when none", () => {
    expect(formatMessageAlias(42, "high")).toBe("MSG-H-0042");
    expect(formatMessageAlias(42, "critical")).toBe("MSG-C-0042");
    expect(formatMessageAlias(42)).toBe("MSG-M-0042");
  });

  it("refuses a sequence that is not a positive integer", () => {
    expect(() => formatConversationAlias(0)).toThrow(DomainError);
    expect(() => formatMessageAlias(1.5)).toThrow(/integer ≥ 1/);
  });

  it("parses case-insensitively, the letter being informative only", () => {
    expect(parseAlias("msg-h-0042")).toEqual({ kind: "message", seq: 42 });
    expect(parseAlias("MSG-L-0042")).toEqual(parseAlias("MSG-C-0042"));
    expect(parseAlias(" MSG-0042 ")).toEqual({ kind: "message", seq: 42 });
    expect(parseAlias("conv-0007")).toEqual({ kind: "conversation", seq: 7 });
  });

  it("round-trips what it formats", () => {
    for (const seq of [1, 42, 9999, 10_000, 123_456_789]) {
      expect(parseAlias(formatConversationAlias(seq))).toEqual({ kind: "conversation", seq });
      expect(parseAlias(formatMessageAlias(seq, "high"))).toEqual({ kind: "message", seq });
    }
  });

  it("rejects what is not an alias", () => {
    for (const bad of ["", "CONV-", "CONV-0000", "MSG-X-0042", "CONV-12a", "see CONV-0001", "TASK-0001", "CONV-99999999999999999999"]) {
      expect(parseAlias(bad)).toBeUndefined();
    }
  });
});

describe("unread", () => {
  it("counts two messages of the same second as both unread (by position, not time)", () => {
    const s = setup();
    s.commit(decideRead(s.conv, s.coder.pubkey, s.conv.lastN, T * 1000));
    s.add(s.p.reply(s.planner, s.root, "one", [s.coder.pubkey], [], s.root, T + 7));
    s.add(s.p.reply(s.planner, s.root, "two", [s.coder.pubkey], [], s.root, T + 7));
    expect(unreadFor(s.conv, s.coder.pubkey, T + 8).sort()).toEqual(["one", "two"]);
  });

  it("counts a late-arriving older message as unread after the read mark", () => {
    const s = setup();
    s.add(s.p.reply(s.planner, s.root, "new", [], [], s.root, T + 10));
    s.commit(decideRead(s.conv, s.coder.pubkey, s.conv.lastN, T * 1000));
    s.add(s.p.reply(s.planner, s.root, "delayed", [], [], s.root, T + 5));
    expect(unreadFor(s.conv, s.coder.pubkey, T + 11)).toEqual(["delayed"]);
  });

  it("never shows a sender its own message as unread", () => {
    const s = setup();
    s.add(s.p.reply(s.coder, s.root, "mine", [s.planner.pubkey], [], s.root, T + 1));
    expect(unreadFor(s.conv, s.coder.pubkey, T + 2)).toEqual(["inbox"]);
    expect(unreadFor(s.conv, s.planner.pubkey, T + 2)).toEqual(["inbox", "mine"]);
  });

  it("does not count an acked message as unread", () => {
    const s = setup();
    const ev = s.p.reply(s.planner, s.root, "ack me", [s.coder.pubkey], [], s.root, T + 1);
    s.add(ev);
    s.add(s.p.reply(s.planner, s.root, "later", [s.coder.pubkey], [], s.root, T + 2));
    s.commit(decideAck(s.conv, s.coder.pubkey, ev.id, T * 1000));
    expect(unreadFor(s.conv, s.coder.pubkey, T + 3)).toEqual(["inbox", "later"]);
  });

  it("hides an expired message (NIP-40), from its expiration second on", () => {
    const s = setup();
    s.add(s.p.reply(s.planner, s.root, "brief", [s.coder.pubkey], [["expiration", String(T + 60)]], s.root, T + 1));
    expect(unreadFor(s.conv, s.coder.pubkey, T + 59)).toContain("brief");
    expect(unreadFor(s.conv, s.coder.pubkey, T + 60)).not.toContain("brief");
  });

  it("reads expiry from tags", () => {
    const s = setup();
    const ev = s.p.reply(s.planner, s.root, "x", [], [["expiration", String(T + 60)]], s.root, T);
    expect(isExpired(ev.tags, T + 59)).toBe(false);
    expect(isExpired(ev.tags, T + 61)).toBe(true);
    expect(isExpired(s.root.tags, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});
