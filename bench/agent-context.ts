// buildAgentMessages on a long conversation (bench/goals.ts): one agent's first context on 5,001
// real signed events (~0.8 KB each, from a user and 3 agents), then its context after each batch
// of 10 new events, the agent's cursor moving as the daemon moves it.

import { initNostrWasm } from "nostr-wasm";
import { finalizeEvent, generateSecretKey, getPublicKey, setNostrWasm } from "nostr-tools/wasm";
import { buildAgentMessages, type BuildOptions } from "../src/agent-messages.js";
import { ContextCache } from "../src/agent-view.js";
import { decideAddEvent, decideCursor, stamp } from "../src/conversation.js";
import { applyRecord, emptyConversation } from "../src/conversation-reducer.js";
import type { Conversation } from "../src/conversation-state.js";
import { formatCoordinate } from "../src/coordinate.js";
import type { NewRecord } from "../src/records.js";
import type { AgentInfo, NostrEvent } from "../src/types.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";

const HISTORY = 5_000;
const BATCH = 10;
const ROUNDS = 15;
const T0 = 1_700_000_000;

interface Key {
  sk: Uint8Array;
  pubkey: string;
}

const newKey = (): Key => {
  const sk = generateSecretKey();
  return { sk, pubkey: getPublicKey(sk) };
};

const filler = (i: number) => `message ${i} `.padEnd(800, "lorem ipsum dolor sit amet ");

function workload() {
  const user = newKey();
  const agents = ["Planner", "Coder", "Tester"].map((name) => ({ name, key: newKey() }));
  const coordinate = formatCoordinate(user.pubkey, "bench");
  const target: AgentInfo = {
    slug: "planner", name: "Planner", pubkey: agents[0]!.key.pubkey, role: "planner", isOrchestrator: false,
  };
  const authors = [user, ...agents.map((a) => a.key)];
  let seq = 0;
  const signed = (author: Key, kind: number, content: string, tags: string[][]): NostrEvent =>
    JSON.parse(JSON.stringify(finalizeEvent({ kind, content, tags, created_at: T0 + seq++ }, author.sk))) as NostrEvent;

  const root = signed(user, 11, filler(0), [["a", coordinate], ["title", "bench"]]);
  const reply = (author: Key, content: string, p: string[] = []) => signed(author, 1111, content, [
    ["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id], ["k", "11"], ["a", coordinate],
    ...p.map((x) => ["p", x]),
  ]);
  // Every batch ends with the user addressing the measured agent: that event is the trigger.
  const batch = (size: number, offset: number) => Array.from({ length: size }, (_, i) => i === size - 1
    ? reply(user, filler(offset + i), [target.pubkey])
    : reply(authors[(offset + i) % authors.length]!, filler(offset + i)));

  const history = [root, ...batch(HISTORY, 1)];
  const rounds = Array.from({ length: ROUNDS }, (_, r) => batch(BATCH, HISTORY + 1 + r * BATCH));
  const names = new Map([[user.pubkey, "User"], ...agents.map((a) => [a.key.pubkey, a.name] as [string, string])]);
  const opts: BuildOptions = {
    nameOf: (pk) => names.get(pk) ?? pk.slice(0, 8),
    isAgent: (pk) => pk !== user.pubkey && names.has(pk),
    cache: new ContextCache(),
  };
  return { root, history, rounds, target, opts };
}

function commit(conv: Conversation, recs: readonly NewRecord[]): void {
  for (const r of stamp(conv, recs)) applyRecord(conv, r);
}

/** Builds the context for the trigger (the last event added), timed, then moves the cursor. */
function look(conv: Conversation, w: ReturnType<typeof workload>, trigger: NostrEvent): { ms: number; count: number } {
  const start = performance.now();
  const ctx = buildAgentMessages(conv, w.target, trigger, w.opts);
  const ms = performance.now() - start;
  commit(conv, decideCursor(conv, ctx.cursor, Date.now()));
  return { ms, count: ctx.messages.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

export async function benchAgentContext(): Promise<Figure[]> {
  // Signing 5,150 events is the slow part of the setup: libsecp256k1 (wasm) does it ~5× faster.
  setNostrWasm(await initNostrWasm());
  const w = workload();
  const conv = emptyConversation(w.root.id);
  for (const ev of w.history) commit(conv, decideAddEvent(conv, ev, "relay", Date.now()));

  const first = look(conv, w, w.history[w.history.length - 1]!);
  const incremental: number[] = [];
  for (const events of w.rounds) {
    for (const ev of events) commit(conv, decideAddEvent(conv, ev, "relay", Date.now()));
    incremental.push(look(conv, w, events[events.length - 1]!).ms);
  }
  return [
    {
      name: "agent_context_first_ms", value: round3(first.ms), unit: "ms", goal: goalText("agent_context_first_ms"),
      note: `first call, cold cache and cold JIT, ${HISTORY + 1} events, ${first.count} messages`,
    },
    {
      name: "agent_context_incremental_ms", value: round3(median(incremental)), unit: "ms",
      goal: goalText("agent_context_incremental_ms"),
      note: `median of ${ROUNDS} rounds of ${BATCH} new events; max ${round3(Math.max(...incremental))} ms`,
    },
  ];
}
