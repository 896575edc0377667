import { describe, it, expect } from "vitest";
import { threadOf } from "../../src/messaging/index.js";
import type { NostrEvent } from "../../src/types.js";
import { inConversationOrder } from "../helpers/conversation.js";
import { testProject } from "../helpers/events.js";

const T = 1_700_000_000;

function setup() {
  const p = testProject({ agents: ["planner", "coder"] });
  const planner = p.agents.planner!;
  const coder = p.agents.coder!;
  const root = p.root(p.owner, "thread root", [], [], T);
  const at = (author: typeof coder, content: string, parent: NostrEvent, secs: number) =>
    p.reply(author, root, content, [], [], parent, T + secs);
  // Events as a conversation holds them, received in the order given.
  const thread = (received: NostrEvent[]) => threadOf(inConversationOrder(root.id, received), root.id);
  return { p, planner, coder, root, at, thread };
}

const shape = (entries: ReturnType<typeof threadOf>) => entries.map((e) => `${e.depth}:${e.ev.content}`);

describe("threads", () => {
  it("nests replies under their e parent, siblings in conversation order, depth-first", () => {
    const { root, at, planner, coder, thread: threadOfReceived } = setup();
    const a = at(planner, "a", root, 1);
    const b = at(coder, "b", root, 5);
    const a2 = at(coder, "a2", a, 4);
    const a1 = at(coder, "a1", a, 2);
    const a1x = at(planner, "a1x", a1, 3);
    const thread = threadOfReceived([b, a1x, root, a2, a, a1]);
    expect(shape(thread)).toEqual(["0:thread root", "1:a", "2:a1", "3:a1x", "2:a2", "1:b"]);
    expect(thread.find((e) => e.ev.id === a1x.id)?.parentId).toBe(a1.id);
    expect(thread[0]!.parentId).toBeUndefined();
  });

  it("orders siblings of the same second as they were received, whatever their ids", () => {
    const { root, at, planner, coder, thread } = setup();
    const x = at(planner, "x", root, 1);
    const y = at(coder, "y", root, 1);
    expect(shape(thread([y, x, root])).slice(1)).toEqual(["1:y", "1:x"]);
    expect(shape(thread([x, y, root])).slice(1)).toEqual(["1:x", "1:y"]);
  });

  it("keeps the order it is given", () => {
    const { root, at, planner, coder } = setup();
    const x = at(planner, "x", root, 1);
    const y = at(coder, "y", root, 1);
    expect(shape(threadOf([root, y, x], root.id))).toEqual(["0:thread root", "1:y", "1:x"]);
  });

  it("follows replies to any depth", () => {
    const { root, at, planner, thread: threadOfReceived } = setup();
    const chain: NostrEvent[] = [];
    let parent = root;
    for (let i = 1; i <= 60; i++) {
      parent = at(planner, `d${i}`, parent, i);
      chain.push(parent);
    }
    const thread = threadOfReceived([...chain].reverse().concat(root));
    expect(thread).toHaveLength(61);
    expect(thread[60]!.depth).toBe(60);
    expect(thread.map((e) => e.depth)).toEqual(Array.from({ length: 61 }, (_, i) => i));
  });

  it("attaches a reply whose parent is missing to the root", () => {
    const { p, root, at, coder, thread: threadOfReceived } = setup();
    const elsewhere = p.root(p.owner, "another conversation", [], [], T);
    const orphan = at(coder, "orphan", elsewhere, 2);
    const kept = at(coder, "kept", root, 1);
    const thread = threadOfReceived([root, orphan, kept]);
    expect(shape(thread)).toEqual(["0:thread root", "1:kept", "1:orphan"]);
    expect(thread[2]!.parentId).toBe(root.id);
  });

  it("leaves out other conversations' events and shows a repeated event once", () => {
    const { p, root, at, coder } = setup();
    const other = p.root(p.owner, "other", [], [], T);
    const foreign = p.reply(coder, other, "foreign", [], [], other, T + 1);
    const mine = at(coder, "mine", root, 1);
    expect(shape(threadOf([root, other, foreign, mine, mine], root.id))).toEqual(["0:thread root", "1:mine"]);
  });

  it("still threads the replies when the root itself is not known yet", () => {
    const { root, at, coder, planner } = setup();
    const a = at(coder, "a", root, 1);
    const a1 = at(planner, "a1", a, 2);
    expect(shape(threadOf([a1, a], root.id))).toEqual(["1:a", "2:a1"]);
  });
});
