import { describe, it, expect } from "vitest";
import {
  decideAck, decideAddEvent, decideArchive, decideClose, decideComplete, decideCursor, decideRead, decideReopen,
  decideRestore, stamp,
} from "../../src/conversation.js";
import { RecordSequenceError, applyRecord, emptyConversation, replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { NotFoundError } from "../../src/errors.js";
import { decideExecStart } from "../../src/execution-time.js";
import { decidePhaseChange } from "../../src/phases.js";
import type { LogRecord, NewRecord } from "../../src/records.js";
import { decideStartTurn } from "../../src/turns.js";
import type { NostrEvent } from "../../src/types.js";
import { MemoryConversationLog } from "../../adapters/memory/memory-conversation-log.js";
import { sign, testProject } from "../helpers/events.js";

/** As a relay delivers it: plain JSON, without nostr-tools' in-memory "verified" mark. */
const plain = (ev: NostrEvent): NostrEvent => JSON.parse(JSON.stringify(ev)) as NostrEvent;

function setup() {
  const p = testProject();
  const user = p.owner;
  const log: LogRecord[] = [];
  let clock = 1_000;
  let t = 1_700_000_000;
  const at = () => t++;
  let conv: Conversation | undefined;
  const commit = (recs: readonly NewRecord[]) => {
    const stamped = stamp(conv!, recs);
    for (const r of stamped) applyRecord(conv!, r);
    log.push(...stamped);
    return stamped;
  };
  const add = (ev: NostrEvent, convId = ev.id) => {
    conv ??= emptyConversation(convId, p.coordinate);
    return commit(decideAddEvent(conv, plain(ev), "relay", clock++));
  };
  return { p, user, at, add, commit, log, now: () => clock++, conv: () => conv! };
}

describe("conversation events", () => {
  it("starts from the root: title, kind, createdAt, project, participants", () => {
    const { p, user, at, add, conv } = setup();
    const root = p.root(user, "Build a CLI that prints the weather", [], [], at());
    const recs = add(root);
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ t: "event", n: 1, origin: "relay" });
    const c = conv();
    expect(c.id).toBe(root.id);
    expect(c.title).toBe("Build a CLI that prints the weather");
    expect(c.rootKind).toBe(11);
    expect(c.createdAt).toBe(root.created_at);
    expect(c.project).toBe(p.coordinate);
    expect([...c.participants]).toEqual([user.pubkey]);
    expect(c.lastN).toBe(1);
  });

  it("titles a root without a title tag with its first line, cut to 80 characters", () => {
    const { p, user, at, add, conv } = setup();
    const line = "x".repeat(100);
    add(sign(user, 11, `${line}\nsecond line`, [["a", p.coordinate]], at()));
    expect(conv().title).toBe("x".repeat(80));
  });

  it("takes the project from the `a` tag that is a project coordinate, not the first `a` tag", () => {
    const { p, user, at } = setup();
    const root = sign(user, 11, "hello", [["a", `30023:${user.pubkey}:article`], ["a", p.coordinate]], at());
    const conv = emptyConversation(root.id);
    for (const r of stamp(conv, decideAddEvent(conv, root, "relay", 1))) applyRecord(conv, r);
    expect(conv.project).toBe(p.coordinate);
  });

  it("exists from a reply that arrives before its root; the root fills title, kind and createdAt", () => {
    const { p, user, at, add, conv } = setup();
    const root = p.root(user, "The real title", [], [], at());
    const reply = p.reply(p.agents.planner!, root, "early reply", [], [], root, at());
    add(reply, root.id);
    expect(conv().title).toBe("");
    expect(conv().rootKind).toBeUndefined();
    expect(conv().createdAt).toBe(reply.created_at);
    add(root);
    expect(conv().title).toBe("The real title");
    expect(conv().rootKind).toBe(11);
    expect(conv().createdAt).toBe(root.created_at);
    expect(conv().updatedAt).toBe(reply.created_at);
    expect(conv().events.map((e) => [e.ev.id, e.n])).toEqual([[root.id, 2], [reply.id, 1]]);
  });

  it("orders events by created_at, then by arrival within a second, whatever their ids", () => {
    const { p, user, at, add, conv } = setup();
    const root = p.root(user, "root", [], [], at());
    add(root);
    const same = at();
    const replies = [0, 1, 2, 3, 4].map((i) => p.reply(user, root, `same second ${i}`, [], [], root, same));
    const older = p.reply(user, root, "older", [], [], root, root.created_at);
    for (const r of [...replies].reverse()) add(r);
    add(older);
    // Same second: as received (the replies in reverse), never by id.
    const expected = [root, older, ...[...replies].reverse()];
    expect(conv().events.map((e) => e.ev.id)).toEqual(expected.map((e) => e.id));
    for (const e of conv().events) expect(conv().eventsById.get(e.ev.id)).toBe(e);
  });

  it("changes nothing for a re-delivered root and duplicate replies", () => {
    const { p, user, at, add, conv, now } = setup();
    const root = p.root(user, "Build a CLI", [p.agents.planner!.pubkey], [], at());
    add(root);
    const reply = p.reply(p.agents.planner!, root, "on it", [], [], root, at());
    add(reply);
    const before = structuredClone(conv());
    for (const ev of [root, reply, reply, root]) {
      expect(decideAddEvent(conv(), plain(ev), "relay", now())).toEqual([]);
      expect(add(ev)).toEqual([]);
    }
    expect(conv()).toEqual(before);
  });

  it("refuses a record that is not after the last position", () => {
    const { p, user, at, add, conv } = setup();
    add(p.root(user, "root", [], [], at()));
    expect(() => applyRecord(conv(), { t: "archive", n: 1, at: 1, archived: true })).toThrow(RecordSequenceError);
    expect(() => applyRecord(conv(), { t: "archive", n: 0, at: 1, archived: true })).toThrow(RecordSequenceError);
    expect(conv().archived).toBe(false);
  });

  it("takes a gap in positions (a damaged line set aside) and stamps after the last one", () => {
    const { p, user, at, add, conv, now } = setup();
    add(p.root(user, "root", [], [], at()));
    applyRecord(conv(), { t: "read", n: 5, at: 1, agent: user.pubkey, seq: 1 });
    expect(conv().lastN).toBe(5);
    expect(conv().views.get(user.pubkey)?.readSeq).toBe(1);
    expect(stamp(conv(), decideClose(conv(), {}, now())).map((r) => r.n)).toEqual([6]);
  });

  it("stamps the next positions without changing the conversation", () => {
    const { p, user, at, add, conv, now } = setup();
    add(p.root(user, "root", [], [], at()));
    const recs = stamp(conv(), [...decideClose(conv(), {}, now()), ...decideArchive(conv(), now())]);
    expect(recs.map((r) => r.n)).toEqual([2, 3]);
    expect(conv().lastN).toBe(1);
    expect(conv().status).toBe("open");
  });
});

describe("conversation decisions", () => {
  it("closes, reopens and completes, each only when it changes something", () => {
    const { p, user, at, add, commit, conv, now } = setup();
    add(p.root(user, "root", [], [], at()));
    expect(decideReopen(conv(), {}, now())).toEqual([]);
    expect(commit(decideClose(conv(), { by: user.pubkey, reason: "done for now" }, now()))[0])
      .toMatchObject({ t: "status", status: "closed", by: user.pubkey, reason: "done for now" });
    expect(conv().status).toBe("closed");
    expect(decideClose(conv(), {}, now())).toEqual([]);
    commit(decideReopen(conv(), {}, now()));
    expect(conv().status).toBe("open");
    commit(decideComplete(conv(), {}, now()));
    expect(conv().status).toBe("completed");
  });

  it("archives and restores, each only when it changes something", () => {
    const { p, user, at, add, commit, conv, now } = setup();
    add(p.root(user, "root", [], [], at()));
    expect(decideRestore(conv(), now())).toEqual([]);
    commit(decideArchive(conv(), now()));
    expect(conv().archived).toBe(true);
    expect(decideArchive(conv(), now())).toEqual([]);
    commit(decideRestore(conv(), now()));
    expect(conv().archived).toBe(false);
  });

  it("moves a cursor forward only, and records a new session even without moving", () => {
    const { p, user, at, add, commit, conv, now } = setup();
    add(p.root(user, "root", [], [], at()));
    const agent = p.agents.planner!.pubkey;
    commit(decideCursor(conv(), { agent, seq: 1, session: "s1" }, now()));
    expect(conv().views.get(agent)).toMatchObject({ cursor: 1, session: "s1" });
    expect(decideCursor(conv(), { agent, seq: 0 }, now())).toEqual([]);
    expect(decideCursor(conv(), { agent, seq: 1, session: "s1" }, now())).toEqual([]);
    commit(decideCursor(conv(), { agent, seq: 0, session: "s2" }, now()));
    expect(conv().views.get(agent)).toMatchObject({ cursor: 1, session: "s2" });
  });

  it("keeps read marks within the log and never moves them back; acks once per event", () => {
    const { p, user, at, add, commit, conv, now } = setup();
    const root = p.root(user, "root", [], [], at());
    add(root);
    const agent = p.agents.coder!.pubkey;
    commit(decideRead(conv(), agent, 99, now()));
    expect(conv().views.get(agent)!.readSeq).toBe(1);
    expect(decideRead(conv(), agent, 1, now())).toEqual([]);
    commit(decideAck(conv(), agent, root.id, now()));
    expect(conv().views.get(agent)!.acks.has(root.id)).toBe(true);
    expect(decideAck(conv(), agent, root.id, now())).toEqual([]);
    expect(() => decideAck(conv(), agent, "f".repeat(64), now())).toThrow(NotFoundError);
  });
});

describe("replay", () => {
  it("rebuilds from the log exactly the state the live conversation has", async () => {
    const { p, user, at, add, commit, log, conv, now } = setup();
    const { planner, coder } = p.agents as Required<typeof p.agents>;
    const root = p.root(user, "Build a CLI", [planner!.pubkey], [], at());
    const early = p.reply(coder!, root, "early", [], [], root, at());
    add(early, root.id);
    add(root);
    add(p.reply(planner!, root, "plan", [], [], root, at()));
    commit([decidePhaseChange(conv().phase, { to: "plan", by: planner!.pubkey, message: "planning", reason: "r" }, now())]);
    commit(decideStartTurn(conv().turns, { turnId: "t1", phase: "plan", agents: [planner!.pubkey], reason: "plan it" }, now()));
    commit(decideExecStart(conv().exec, now()));
    commit(decideCursor(conv(), { agent: planner!.pubkey, seq: 3, session: "s" }, now()));
    commit(decideRead(conv(), coder!.pubkey, 2, now()));
    commit(decideAck(conv(), coder!.pubkey, root.id, now()));
    commit(decideClose(conv(), { by: user.pubkey }, now()));
    commit(decideArchive(conv(), now()));
    commit([{ t: "sent", at: now(), eventId: root.id, relay: "ws://127.0.0.1:1" }]);

    const store = new MemoryConversationLog();
    await store.append(root.id, log);
    expect(await store.lastPosition(root.id)).toBe(log.length);
    const rebuilt = replay(root.id, await store.read(root.id));
    expect(rebuilt).toEqual(conv());
    expect(rebuilt.phase.phase).toBe("plan");
    expect(rebuilt.turns.turns).toHaveLength(1);
  });
});
