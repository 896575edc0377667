// The conformance suite's world: TENEX's test cast with fixed keys (so every event, its id and
// thus every run is the same), events built the way the clients build them, and a conversation
// driven the way the daemon drives it (src/inbound.ts for each arrival; buildAgentMessages and
// the cursor move for each turn an agent takes).
//
// Event shapes, from the clients' code:
// - web client, new conversation: `NDKThread` (kind 11): ["title", first 50 characters],
//   ["a", project], then ["p", agent] per mention; signed without NDK's automatic p-tags.
// - web client, reply: NDK `reply()` (NIP-22, kind 1111), its p-tags removed, then ["a",
//   project] and the mentions' p-tags. Replying to the root: ["e", root, hint, author],
//   ["E", root, hint, author], ["K","11"], ["P", author], ["k","11"]. Replying to a reply: the
//   parent's root tags (E, P) carried over, ["K", root kind], ["e", parent, hint, author],
//   ["k","1111"].
// - an agent answering directly over Nostr: NDK `reply()` with its p-tags kept (the parent's
//   p-tags and ["p", parent author]), plus the TENEX tags it writes (triggering-event-id).
// - an agent run by tenexd: src/agent-events (buildReply / buildCompletion).

import { createHash } from "node:crypto";
import { initNostrWasm } from "nostr-wasm";
import { finalizeEvent, getPublicKey, setNostrWasm } from "nostr-tools/wasm";
import { expect } from "vitest";
import { AWAY_HEADER, NEW_INTERACTION, buildAgentMessages, type AgentContext, type BuildOptions } from "../../src/agent-messages.js";
import { ContextCache } from "../../src/agent-view.js";
import { buildCompletion, buildReply } from "../../src/agent-events/index.js";
import { decideCursor, stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation, replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { formatCoordinate } from "../../src/coordinate.js";
import { decideInbound } from "../../src/inbound.js";
import type { LogRecord, NewRecord } from "../../src/records.js";
import { decideStartTurn } from "../../src/turns.js";
import type { AgentInfo, NostrEvent, Phase, ProjectInfo } from "../../src/types.js";

// libsecp256k1 (wasm) signs ~10x faster than the pure-JS path: the property test signs ~800 events.
setNostrWasm(await initNostrWasm());

/** One second: TENEX's tests stamp every event `Date.now() / 1000`, and so do busy clients. */
export const T0 = 1_760_000_000;

export interface Person {
  slug: string;
  name: string;
  sk: Uint8Array;
  pubkey: string;
}

const person = (slug: string, name: string): Person => {
  const sk = createHash("sha256").update(`tenexd conformance ${slug}`).digest();
  return { slug, name, sk, pubkey: getPublicKey(sk) };
};

/** TENEX's test cast: the user, its agents (the orchestrator among them), the owner of the project. */
export const CAST = {
  user: person("user", "User"),
  owner: person("owner", "Owner"),
  orchestrator: person("orchestrator", "Orchestrator"),
  pm: person("project-manager", "Project Manager"),
  dev: person("developer", "Developer"),
  tester: person("tester", "Tester"),
  hr: person("human-replica", "Human Replica"),
  planner: person("planner", "Planner"),
} as const;
export type Who = keyof typeof CAST;

const AGENT_KEYS: readonly Who[] = ["orchestrator", "pm", "dev", "tester", "hr", "planner"];
export const COORDINATE = formatCoordinate(CAST.owner.pubkey, "tenex-conformance");

const agentInfo = (who: Who): AgentInfo => {
  const p = CAST[who];
  return { slug: p.slug, name: p.name, pubkey: p.pubkey, role: p.slug, isOrchestrator: who === "orchestrator" };
};

export const PROJECT: ProjectInfo = {
  coordinate: COORDINATE,
  ownerPubkey: CAST.owner.pubkey,
  whitelist: [CAST.owner.pubkey, CAST.user.pubkey],
  agents: AGENT_KEYS.map(agentInfo),
};

export const agent = (who: Who): AgentInfo => agentInfo(who);
const names = new Map(Object.values(CAST).map((p) => [p.pubkey, p.name]));
export const nameOf = (pubkey: string): string => names.get(pubkey) ?? pubkey.slice(0, 8);
export const isAgent = (pubkey: string): boolean => PROJECT.agents.some((a) => a.pubkey === pubkey);

function sign(who: Who, kind: number, content: string, tags: string[][], createdAt: number): NostrEvent {
  // As a relay delivers it: plain JSON, without nostr-tools' in-memory "verified" mark.
  return JSON.parse(JSON.stringify(finalizeEvent({ kind, content, tags, created_at: createdAt }, CAST[who].sk))) as NostrEvent;
}

const pTag = (who: Who) => ["p", CAST[who].pubkey];

/** A new conversation from the web client (NDKThread). */
export function webRoot(by: Who, content: string, to: Who[] = [], at = T0, extra: string[][] = []): NostrEvent {
  return sign(by, 11, content, [["title", content.slice(0, 50)], ["a", COORDINATE], ...to.map(pTag), ...extra], at);
}

/** NDK `reply()` on `parent` (NIP-22), before the caller adds or removes tags. */
function ndkReplyTags(parent: NostrEvent, relayHint = ""): string[][] {
  const rootTags = parent.tags.filter((t) => ["A", "E", "I", "P"].includes(t[0]!));
  const out: string[][] = [];
  if (rootTags.length > 0) {
    out.push(...rootTags);
    const k = parent.tags.find((t) => t[0] === "K")?.[1];
    if (k) out.push(["K", k]);
    out.push(["e", parent.id, relayHint, parent.pubkey]);
  } else {
    out.push(["e", parent.id, relayHint, parent.pubkey], ["E", parent.id, relayHint, parent.pubkey], ["K", String(parent.kind)], ["P", parent.pubkey]);
  }
  out.push(["k", String(parent.kind)]);
  return out;
}

/** A reply from the web client: NDK's p-tags removed, the project and the mentions added. */
export function webReply(by: Who, parent: NostrEvent, content: string, to: Who[] = [], at = T0, extra: string[][] = []): NostrEvent {
  return sign(by, 1111, content, [...ndkReplyTags(parent), ["a", COORDINATE], ...to.map(pTag), ...extra], at);
}

/**
 * An agent answering straight over Nostr with NDK `reply()` and its own key (not through
 * tenexd): NDK's p-tags kept, the relay it read the parent from as hint, TENEX's tags added.
 */
export function directReply(by: Who, parent: NostrEvent, content: string, opts: { to?: Who[]; at?: number; trigger?: NostrEvent; relay?: string } = {}): NostrEvent {
  const pTags = [...parent.tags.filter((t) => t[0] === "p"), ["p", parent.pubkey]].filter((t) => t[1] !== CAST[by].pubkey);
  return sign(by, 1111, content, [
    ...ndkReplyTags(parent, opts.relay ?? "wss://relay.tenex.chat"), ...pTags, ...(opts.to ?? []).map(pTag),
    ["a", COORDINATE], ...(opts.trigger ? [["triggering-event-id", opts.trigger.id]] : []),
  ], opts.at ?? T0);
}

/** An agent run by tenexd: its reply (or completion) as the daemon builds it. */
export function daemonReply(
  by: Who, root: NostrEvent, trigger: NostrEvent, content: string,
  opts: { to?: Who[]; complete?: boolean; at?: number; session?: string; phase?: Phase } = {},
): NostrEvent {
  const base = {
    root, parent: trigger, project: COORDINATE, phase: opts.phase ?? "chat", content, triggeringEventId: trigger.id,
    netTimeSecs: 1, createdAt: opts.at ?? T0, ...(opts.session ? { session: opts.session } : {}),
  };
  const unsigned = opts.complete
    ? buildCompletion({ ...base, orchestrator: CAST.orchestrator.pubkey })
    : buildReply({ ...base, recipients: (opts.to ?? []).map((w) => CAST[w].pubkey) });
  return sign(by, unsigned.kind, unsigned.content, unsigned.tags, unsigned.created_at);
}

/** `role|content`, the form expectations are written in. */
export const line = (m: { role: string; content: string }) => `${m.role}|${m.content}`;
export const AWAY = (...lines: string[]) => `system|${AWAY_HEADER}\n${lines.join("\n")}`;
export const NEW = `system|${NEW_INTERACTION}`;

/** A conversation fed and read as the daemon does it. */
export class Scene {
  conv: Conversation;
  private clock = 1_000;
  private readonly cache = new ContextCache();
  readonly log: LogRecord[] = [];

  constructor(readonly rootId: string) {
    this.conv = emptyConversation(rootId, COORDINATE);
  }

  private commit(records: readonly NewRecord[]): void {
    for (const r of stamp(this.conv, records)) {
      applyRecord(this.conv, r);
      this.log.push(r);
    }
  }

  /** An event arrives (live or from a back-fill, duplicates included) and is filed. */
  arrive(...events: NostrEvent[]): this {
    for (const ev of events) {
      const records = decideInbound(this.conv, ev, "relay", this.clock++);
      if (records.length === 0) continue;
      this.commit(records);
    }
    return this;
  }

  private opts(cache: boolean): BuildOptions {
    return { nameOf, isAgent, ...(cache ? { cache: this.cache } : {}) };
  }

  /** What `who` would be given for `trigger`, changing nothing (`tenexd context`). */
  peek(who: Who, trigger: NostrEvent): AgentContext {
    return buildAgentMessages(this.conv, agent(who), trigger, this.opts(false));
  }

  /**
   * `who` takes its turn on `trigger`: its context (checked against a build without the cache),
   * then its cursor moves, as a run does.
   */
  turn(who: Who, trigger: NostrEvent): AgentContext {
    const cold = this.peek(who, trigger);
    const ctx = buildAgentMessages(this.conv, agent(who), trigger, this.opts(true));
    expect(ctx).toEqual(cold);
    this.commit(decideCursor(this.conv, ctx.cursor, this.clock++));
    return ctx;
  }

  /** The orchestrator's output routed `agents` (pubkeys): the turn it opens (TENEX's startOrchestratorTurn). */
  openTurn(turnId: string, phase: Phase, agents: string[], reason: string): void {
    this.commit(decideStartTurn(this.conv.turns, { turnId, phase, agents, reason }, this.clock++));
  }

  /** The agent's output kept a claude session (TENEX's updateAgentState). */
  keepSession(who: Who, session: string): void {
    this.commit(decideCursor(this.conv, { agent: CAST[who].pubkey, seq: 0, session }, this.clock++));
  }

  /** The conversation rebuilt from its log, as after a restart. */
  restarted(): Conversation {
    return replay(this.rootId, this.log);
  }

  cursorOf(who: Who): number {
    return this.conv.views.get(CAST[who].pubkey)?.cursor ?? 0;
  }

  positionOf(ev: NostrEvent): number {
    return this.conv.eventsById.get(ev.id)!.n;
  }

  contents(): string[] {
    return this.conv.events.map((e) => e.ev.content);
  }
}
