// A TENEX `.tenex/conversations/` folder, written the way TENEX wrote it (mid-2025 format:
// metadata.json + one <id>.json per conversation, archived ones under archive/), from REAL
// signed events serialized by NDK itself (`NDKEvent.serialize(true, true)`).
//
// Contents:
// - `main`: 9 events (one with a broken signature), phase chat→plan→execute, four turns (one
//   completed, one superseded, one completed with a completion that has no event, one open),
//   agent states (one for a slug the project does not know), closed execution time, read files.
// - `live`: phases written uppercase, no orchestratorTurns field, an event serialized without
//   its signature, one whose content was edited after signing, an execution session still open.
// - `old` (archived): phase "plan" with no transition recorded.
// - an unparseable `<hex>.json`, and a conversation in a file whose name is not an id.
// writeMultiFixture writes, on its own, `multi`: a conversation as TENEX's orchestrator left it
// (tenex-model.ts), in a first and a grown version.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NDKEvent } from "@nostr-dev-kit/ndk";
import type { NostrEvent } from "../../src/types.js";
import { testProject, type ProjectKeys, type TestKey } from "./events.js";
import { TenexModel } from "./tenex-model.js";

const BASE = 1_700_000_000;
const ms = (secs: number, extra = 0) => secs * 1000 + extra;

/** The JSON TENEX wrote for one conversation (only the fields the import reads). */
export interface TenexFile {
  id: string;
  title: string;
  phase: string;
  history: string[];
  agentStates: Record<string, { lastProcessedMessageIndex: number; claudeSessionId?: string; lastSeenPhase?: string }>;
  phaseTransitions: { from: string; to: string; message: string; timestamp: number; agentPubkey: string; agentName: string; reason?: string }[];
  orchestratorTurns?: {
    turnId: string; timestamp: number; phase: string; agents: string[];
    completions: { agent: string; message: string; timestamp?: number }[]; reason?: string; isCompleted: boolean;
  }[];
  executionTime: { totalSeconds: number; currentSessionStart?: number; isActive: boolean; lastUpdated: number };
  metadata: { readFiles?: string[]; summary?: string; last_user_message?: string };
  phaseStartedAt?: number;
}

export interface FixtureConversation {
  id: string;
  file: TenexFile;
  /** History in file order, including the events the import must refuse. */
  events: NostrEvent[];
}

export const serialize = (ev: NostrEvent, withSig = true) => new NDKEvent(undefined, ev).serialize(withSig, true);

/** Same event, signature damaged (last hex digit changed): its id still matches its content. */
const breakSignature = (ev: NostrEvent): NostrEvent => ({ ...ev, sig: ev.sig.slice(0, -1) + (ev.sig.endsWith("0") ? "1" : "0") });

function mainConversation(p: ReturnType<typeof testProject>, ghost: boolean) {
  const { owner, orchestrator, agents: { planner, coder } } = p;
  const root = p.root(owner, "Build a login page", [orchestrator.pubkey], [], BASE);
  const r = (k: typeof owner, t: number, content: string, pTags: string[] = [], extra: string[][] = []) =>
    p.reply(k, root, content, pTags, extra, root, BASE + t);
  const done = [["tool", "complete"]];
  const events = [
    root,
    r(orchestrator, 10, "Routing to planner", [planner!.pubkey], [["phase", "plan"]]),
    r(planner!, 20, "Thinking about the plan", [], [["phase", "plan"]]),
    r(planner!, 30, "Plan ready: three steps", [orchestrator.pubkey], [["phase", "plan"], ...done]),
    r(orchestrator, 40, "Routing to coder", [coder!.pubkey], [["phase", "execute"]]),
    r(coder!, 50, "Implemented the page", [orchestrator.pubkey], [["phase", "execute"], ...done]),
    breakSignature(r(coder!, 55, "A forged aside", [], [["phase", "execute"]])),
    r(coder!, 60, "Tests pass", [orchestrator.pubkey], [["phase", "execute"], ...done]),
    r(owner, 70, "Thanks!"),
  ];
  const file: TenexFile = {
    id: root.id, title: "Build a login page", phase: "execute",
    history: events.map((e) => serialize(e)),
    agentStates: {
      orchestrator: { lastProcessedMessageIndex: 9 },
      planner: { lastProcessedMessageIndex: 3, claudeSessionId: "sess-planner", lastSeenPhase: "plan" },
      coder: { lastProcessedMessageIndex: 7, claudeSessionId: "sess-coder" },
      ...(ghost ? { ghost: { lastProcessedMessageIndex: 2 } } : {}),
    },
    phaseTransitions: [
      { from: "chat", to: "plan", message: "Plan the login page", timestamp: ms(BASE + 10, 500), agentPubkey: orchestrator.pubkey, agentName: "Orchestrator", reason: "needs a plan" },
      { from: "plan", to: "execute", message: "Build it", timestamp: ms(BASE + 40, 500), agentPubkey: orchestrator.pubkey, agentName: "Orchestrator" },
    ],
    orchestratorTurns: [
      { turnId: "turn-1", timestamp: ms(BASE + 10, 600), phase: "plan", agents: ["planner"], reason: "plan first",
        completions: [{ agent: "planner", message: "Plan ready: three steps", timestamp: ms(BASE + 30, 100) }], isCompleted: true },
      // Completion time in event seconds, as TENEX copied it from created_at; "ghost" is unknown.
      { turnId: "turn-2", timestamp: ms(BASE + 40, 600), phase: "execute", agents: ["coder", ...(ghost ? ["ghost"] : [])], reason: "build",
        completions: [{ agent: "coder", message: "Implemented the page", timestamp: BASE + 50 }, ...(ghost ? [{ agent: "ghost", message: "boo" }] : [])],
        isCompleted: false },
      { turnId: "turn-3", timestamp: ms(BASE + 58), phase: "verification", agents: ["coder", "planner"], reason: "verify",
        completions: [
          { agent: "coder", message: "Tests pass", timestamp: ms(BASE + 60, 200) },
          { agent: "planner", message: "Reviewed, looks fine", timestamp: ms(BASE + 65) },
        ], isCompleted: true },
      { turnId: "turn-4", timestamp: ms(BASE + 72), phase: "execute", agents: ["coder"], reason: "polish", completions: [], isCompleted: false },
    ],
    executionTime: { totalSeconds: 90, isActive: false, lastUpdated: ms(BASE + 75) },
    metadata: { readFiles: ["src/login.ts", "README.md"], summary: "login page" },
  };
  return { id: root.id, file, events };
}

function liveConversation(p: ReturnType<typeof testProject>) {
  const { owner, agents: { planner } } = p;
  const root = p.root(owner, "Brainstorm names", [planner!.pubkey], [], BASE + 1000);
  const events = [
    root,
    p.reply(planner!, root, "Some names: A, B, C", [], [], root, BASE + 1010),
    p.reply(owner, root, "Unsigned, as a buggy client stored it", [], [], root, BASE + 1020),
    { ...p.reply(owner, root, "Original words", [], [], root, BASE + 1030), content: "Words edited on disk" },
  ];
  const file: TenexFile = {
    id: root.id, title: "Brainstorm names", phase: "BRAINSTORM",
    history: [serialize(events[0]!), serialize(events[1]!), serialize(events[2]!, false), serialize(events[3]!)],
    agentStates: { planner: { lastProcessedMessageIndex: 2 } },
    phaseTransitions: [{ from: "CHAT", to: "BRAINSTORM", message: "Let's brainstorm", timestamp: ms(BASE + 1001), agentPubkey: p.orchestrator.pubkey, agentName: "Orchestrator" }],
    executionTime: { totalSeconds: 30, isActive: true, currentSessionStart: ms(BASE + 1005), lastUpdated: ms(BASE + 1017) },
    metadata: {},
  };
  return { id: root.id, file, events };
}

function oldConversation(p: ReturnType<typeof testProject>) {
  const { owner, agents: { planner } } = p;
  const root = p.root(owner, "An old question", [planner!.pubkey], [], BASE - 5000);
  const events = [root, p.reply(planner!, root, "An old answer", [], [], root, BASE - 4990), p.reply(owner, root, "ok", [], [], root, BASE - 4980)];
  const file: TenexFile = {
    id: root.id, title: "An old question", phase: "plan", history: events.map((e) => serialize(e)),
    agentStates: {}, phaseTransitions: [], orchestratorTurns: [],
    executionTime: { totalSeconds: 5, isActive: false, lastUpdated: ms(BASE - 4970) },
    metadata: {},
  };
  return { id: root.id, file, events };
}

const writeJson = (path: string, v: unknown) => writeFileSync(path, JSON.stringify(v, null, 2));

const metaEntry = (c: Omit<FixtureConversation, "id"> & { id: string }, archived?: boolean) => ({
  id: c.id, title: c.file.title, createdAt: c.events[0]!.created_at, updatedAt: c.events.at(-1)!.created_at,
  phase: c.file.phase, eventCount: c.events.length, agentCount: new Set(c.events.map((e) => e.pubkey)).size,
  ...(archived !== undefined ? { archived } : {}),
});

/**
 * Writes the folder under `root` and returns it with what it holds. With `keys`, its events are
 * signed with that project's keys (so it matches it); `ghost: false` leaves out the agent slug
 * no project knows.
 */
export function writeTenexFixture(root: string, opts: { keys?: ProjectKeys; ghost?: boolean } = {}) {
  const project = testProject({ agents: ["planner", "coder"], ...(opts.keys ? { keys: opts.keys } : {}) });
  const dir = join(root, ".tenex", "conversations");
  mkdirSync(join(dir, "archive"), { recursive: true });
  const main = mainConversation(project, opts.ghost ?? true);
  const live = liveConversation(project);
  const old = oldConversation(project);
  writeJson(join(dir, `${main.id}.json`), main.file);
  writeJson(join(dir, `${live.id}.json`), live.file);
  writeJson(join(dir, "archive", `${old.id}.json`), old.file);

  const unparseableId = "f".repeat(64);
  writeFileSync(join(dir, `${unparseableId}.json`), '{ "id": "ffff", "history": [ truncated');
  const badNameFile = "notes.json";
  writeJson(join(dir, badNameFile), { ...live.file, id: "notes" });
  writeJson(join(dir, "metadata.json"), {
    conversations: [metaEntry(main, false), metaEntry(live), metaEntry(old, true), { ...metaEntry(live), id: unparseableId, title: "broken" }],
  });

  const agentsBySlug = new Map(project.info.agents.map((a) => [a.slug, a.pubkey]));
  return {
    dir, project, agentsBySlug, main, live, old, unparseableId, badNameFile,
    badEvent: main.events[6]!, unsignedEvent: live.events[2]!, alteredEvent: live.events[3]!,
  };
}

export type TenexFixture = ReturnType<typeof writeTenexFixture>;

const T0 = BASE + 2000;
const at = (secs: number, extraMs = 0) => ms(T0 + secs, extraMs);

/** An agent's event as TENEX's NostrPublisher built it: a reply to its trigger, p only for its destination. */
function agentEvent(
  p: ReturnType<typeof testProject>, author: TestKey, root: NostrEvent, trigger: NostrEvent, content: string, secs: number,
  opts: { complete?: boolean; phase: string },
): NostrEvent {
  return p.reply(author, root, content, opts.complete ? [p.orchestrator.pubkey] : [], [
    ["triggering-event-id", trigger.id], ["triggering-event-content", trigger.content.slice(0, 50)],
    ["phase", opts.phase], ["net-time", "0"], ...(opts.complete ? [["tool", "complete"]] : []),
  ], root, T0 + secs);
}

/** Same text with trailing dots until `ok` holds (ids are hashes: this picks an id order). */
function withIdOrder(make: (content: string) => NostrEvent, content: string, ok: (ev: NostrEvent) => boolean): NostrEvent {
  for (let dots = 0; ; dots++) {
    const ev = make(content + ".".repeat(dots));
    if (ok(ev)) return ev;
  }
}

/**
 * `multi`: a conversation run by TENEX's orchestrator with two-agent turns (see tenex-model.ts for
 * the rules it follows). It holds what the prober met:
 * - double-recorded completions: turns A and C route planner and coder together, so planner's
 *   completion is noted (its summary, ms) and copied again from its event (content, seconds);
 *   coder's completion for B lands in A too, and for D in C;
 * - a sub-second answer/completion pair: coder answers and completes in one second (the
 *   completion's id sorts before the answer's), and planner's last completion is noted at
 *   .999 s while its event is signed in the next second;
 * - END routings, one after a completed turn, one after an unfinished one;
 * - no state for the orchestrator, whom every completion addresses.
 * `first` is the file as TENEX had written it just after planner's last completion (turn E);
 * `file` the same conversation later, grown by three messages, a turn and a phase change.
 */
function multiConversation(p: ReturnType<typeof testProject>) {
  const { owner, orchestrator, agents: { planner, coder } } = p;
  const root = p.root(owner, "Ship the export feature", [], [], T0);
  const m = new TenexModel(root.id, "Ship the export feature", owner.pubkey);
  const reply = (author: TestKey, trigger: NostrEvent, content: string, secs: number, complete = false) =>
    agentEvent(p, author, root, trigger, content, secs, { complete, phase: m.phase });
  m.add(root);
  const ids: Record<string, string> = {};

  ids.A = m.route(["planner", "coder"], "plan", "plan and scaffold", at(1, 200), orchestrator);
  m.run("planner", "sess-planner-1");
  m.run("coder");
  m.noteCompletion("planner", "Plan summary: three steps, export first", at(5, 400));
  const pA = reply(planner!, root, "Plan: three steps", 5, true);
  m.add(pA);
  m.wake(pA, "planner");
  // All in second 5: coder's completion, copied into A with a seconds stamp, comes after
  // planner's, noted with a ms stamp later in that second.
  ids.B = m.route(["coder"], "plan", "coder still scaffolding", at(5, 500), orchestrator);
  m.run("coder");
  m.noteCompletion("coder", "Scaffold ready", at(5, 700));
  const cB = reply(coder!, pA, "Scaffold ready", 5, true);
  m.add(cB);
  m.wake(cB, "coder");

  ids.C = m.route(["planner", "coder"], "execute", "build it", at(9, 100), orchestrator);
  m.run("planner", "sess-planner-2");
  m.noteCompletion("planner", "Reviewed the scaffold", at(12, 700));
  const pC = reply(planner!, cB, "Reviewed the scaffold", 12, true);
  m.add(pC);
  m.wake(pC, "planner");
  ids.D = m.route(["coder"], "execute", "implement", at(13, 500), orchestrator);
  m.run("coder");
  const answer = withIdOrder((c) => reply(coder!, pC, c, 16), "Working on it", () => true);
  const cD = withIdOrder((c) => reply(coder!, pC, c, 16, true), "Implemented", (ev) => ev.id < answer.id);
  m.add(answer);
  m.noteCompletion("coder", cD.content, at(16, 400));
  m.add(cD);
  m.wake(cD, "coder");

  ids.E = m.route(["planner"], "verification", "verify", at(17, 200), orchestrator);
  m.run("planner");
  m.noteCompletion("planner", "All good", at(20, 999));
  const pE = reply(planner!, cD, "All good", 21, true);
  m.add(pE);
  m.wake(pE, "planner");
  m.work(14, at(21, 500));
  const first = m.file();

  ids.F = m.route(["END"], "verification", "Workflow complete", at(21, 600), orchestrator);
  const thanks = p.reply(owner, root, "Thanks! One more: add CSV too", [], [], pE, T0 + 30);
  m.add(thanks);
  ids.G = m.route(["planner"], "chat", "answer the user", at(31), orchestrator);
  m.run("planner");
  const welcome = reply(planner!, thanks, "CSV is in the plan for tomorrow", 33);
  m.add(welcome);
  const bye = p.reply(owner, root, "Bye", [], [], welcome, T0 + 45);
  m.add(bye);
  ids.H = m.route(["END"], "chat", "User said goodbye", at(46), orchestrator);
  m.work(6, at(46, 100));

  const events = [root, pA, cB, pC, answer, cD, pE, thanks, welcome, bye];
  return { id: root.id, file: m.file(), first, events, turnIds: ids, firstEvents: events.slice(0, 7) };
}

/**
 * `stuck`: the orchestrator routed planner in chat three times, planner answered without
 * completing each time, and the last turn is still open (a repeated routing, a stall); then
 * the owner asked planner three more times and TENEX stopped before running it: mail no agent
 * processed.
 */
function stuckConversation(p: ReturnType<typeof testProject>) {
  const { owner, orchestrator, agents: { planner } } = p;
  const T1 = T0 + 500;
  const root = p.root(owner, "Why is the build red?", [], [], T1);
  const m = new TenexModel(root.id, "Why is the build red?", owner.pubkey);
  m.add(root);
  let trigger = root;
  for (let i = 0; i < 3; i++) {
    m.route(["planner"], "chat", "planner knows the build", ms(T1 + 10 * i + 1), orchestrator);
    m.run("planner");
    const answer = agentEvent(p, planner!, root, trigger, `Looking into it (${i + 1})`, 500 + 10 * i + 3, { phase: "chat" });
    m.add(answer);
    trigger = p.reply(owner, root, `Still red? (${i + 1})`, [], [], answer, T1 + 10 * i + 5);
    m.add(trigger);
  }
  for (let i = 0; i < 3; i++) m.add(p.reply(owner, root, `planner, please answer (${i + 1})`, [planner!.pubkey], [], trigger, T1 + 40 + i));
  return { id: root.id, file: m.file(), events: m.history };
}

/**
 * Writes the `multi` conversation (its first version with `grown: false`) under `root`, and with
 * `stuck` the `stuck` one beside it.
 */
export function writeMultiFixture(root: string, opts: { keys?: ProjectKeys; grown?: boolean; stuck?: boolean } = {}) {
  const project = testProject({ agents: ["planner", "coder"], ...(opts.keys ? { keys: opts.keys } : {}) });
  const dir = join(root, ".tenex", "conversations");
  mkdirSync(join(dir, "archive"), { recursive: true });
  const multi = multiConversation(project);
  const stuck = opts.stuck ? stuckConversation(project) : undefined;
  const write = (grown: boolean) => {
    const file = grown ? multi.file : multi.first;
    writeJson(join(dir, `${multi.id}.json`), file);
    if (stuck) writeJson(join(dir, `${stuck.id}.json`), stuck.file);
    writeJson(join(dir, "metadata.json"), {
      conversations: [
        { ...metaEntry({ ...multi, file, events: grown ? multi.events : multi.firstEvents }), archived: false },
        ...(stuck ? [{ ...metaEntry(stuck), archived: false }] : []),
      ],
    });
  };
  write(opts.grown ?? true);
  const agentsBySlug = new Map(project.info.agents.map((a) => [a.slug, a.pubkey]));
  return { dir, project, agentsBySlug, multi, stuck, first: () => write(false), grow: () => write(true) };
}

export type MultiFixture = ReturnType<typeof writeMultiFixture>;
