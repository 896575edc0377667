// TENEX orchestrator turns → turn_start / completion / turn_end records.
//
// A tenexd completion is keyed by the id of its `tool=complete` event. TENEX kept only
// {agent, message, timestamp}, written in one of two ways (ConversationManager, 9e26e63):
// - addCompletionToTurn, when the agent calls complete(): its summary (or response) stamped
//   with Date.now() in ms, just BEFORE the event is signed and published;
// - buildOrchestratorRoutingContext, when that event wakes the orchestrator while the turn is
//   still open (a turn with two agents or more): the event's own content stamped with its
//   created_at in seconds. So a completion of a multi-agent turn is often recorded twice.
// The event is found from what each way left: a seconds stamp must equal the event's
// created_at and the message its content; a ms stamp must be followed by the event within
// SIGN_WINDOW_S (the same content preferred, else the nearest); a completion without a stamp
// (older files) needs the same content, at or after the turn's start. A second record that
// finds the event already linked in the same turn is the double record: it is merged. A
// completion whose event is nowhere (TENEX also noted completions that never became events, or
// whose event was refused) links to nothing: its key is `import:<turnId>:<slug>` (`:2`, `:3`
// for a second and third in one turn), deterministic, so importing again yields the same key.
//
// TENEX's orchestrator could also route to "END", which ends the workflow: it is no agent, so
// it opens no tenexd turn; the turn it follows, when still open, ends there as cancelled.

import type { CompletionRecord } from "../../src/records.js";
import { isCompletion } from "../../src/tags.js";
import type { TurnDecision } from "../../src/turns.js";
import type { NostrEvent } from "../../src/types.js";
import type { PhasedTurn } from "./parse-conversation.js";
import type { TenexCompletion } from "./tenex-schema.js";
import { isSecondsStamp, toMs } from "./time.js";

type Draft<R> = Omit<R, "n">;

/** TENEX's pseudo-agent for "the workflow is done". */
export const END_AGENT = "END";

/** How long after TENEX noted a completion (ms stamp) its event may have been signed. */
const SIGN_WINDOW_S = 30;

export const syntheticCompletionId = (turnId: string, slug: string, k = 1) =>
  `import:${turnId}:${slug}${k > 1 ? `:${k}` : ""}`;

export interface CompletionCounts {
  /** Linked to the `tool=complete` event they came from. */
  linked: number;
  /** Second records of a completion already linked in the same turn, merged into it. */
  merged: number;
  /** No event found: kept under an `import:` key. */
  unlinked: number;
}

export const noCompletions = (): CompletionCounts => ({ linked: 0, merged: 0, unlinked: 0 });

/** Finds the `tool=complete` event a TENEX completion came from. */
export class CompletionMatcher {
  private readonly byAgent = new Map<string, NostrEvent[]>();
  private readonly used = new Set<string>();

  constructor(events: readonly NostrEvent[]) {
    for (const ev of events) {
      if (!isCompletion(ev.tags)) continue;
      const list = this.byAgent.get(ev.pubkey) ?? [];
      list.push(ev);
      this.byAgent.set(ev.pubkey, list);
    }
  }

  source(agent: string, c: TenexCompletion, turnStartMs: number): NostrEvent | undefined {
    const startS = Math.floor(turnStartMs / 1000);
    const list = (this.byAgent.get(agent) ?? []).filter((ev) => ev.created_at >= startS);
    const found = this.find(list, c);
    if (found) this.used.add(found.id);
    return found;
  }

  private find(list: readonly NostrEvent[], c: TenexCompletion): NostrEvent | undefined {
    const ts = c.timestamp;
    if (ts !== undefined && isSecondsStamp(ts)) {
      return list.find((ev) => ev.created_at === ts && ev.content === c.message);
    }
    const fresh = (ev: NostrEvent) => (this.used.has(ev.id) ? 1 : 0);
    if (ts === undefined) {
      return list.filter((ev) => ev.content === c.message).sort((a, b) => fresh(a) - fresh(b))[0];
    }
    const noted = Math.floor(ts / 1000);
    const near = list.filter((ev) => ev.created_at >= noted && ev.created_at <= noted + SIGN_WINDOW_S);
    const rank = (ev: NostrEvent) => [ev.content === c.message ? 0 : 1, ev.created_at - noted, fresh(ev)];
    return near.sort((a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      return ra[0]! - rb[0]! || ra[1]! - rb[1]! || ra[2]! - rb[2]!;
    })[0];
  }
}

export interface TurnContext {
  agentsBySlug: ReadonlyMap<string, string>;
  matcher: CompletionMatcher;
  /** `at` of each kept event's record: a completion never precedes its event in the log. */
  eventAt: ReadonlyMap<string, number>;
  counts: CompletionCounts;
  unknown: UnknownAgents;
  tally: TurnTally;
}

export interface TurnTally {
  /** Turns routed to END. */
  ends: number;
  /** Turns none of whose agents the project knows. */
  skipped: number;
}

/** What named a slug the project does not know, and was left out for it. */
export type UnknownAgents = Map<string, { turns: number; completions: number; states: number }>;

export function noteUnknown(unknown: UnknownAgents, slug: string, what: "turns" | "completions" | "states"): void {
  const entry = unknown.get(slug) ?? { turns: 0, completions: 0, states: 0 };
  entry[what]++;
  unknown.set(slug, entry);
}

function completions(turn: PhasedTurn, startAt: number, ctx: TurnContext): Draft<CompletionRecord>[] {
  const out: Draft<CompletionRecord>[] = [];
  const linked = new Set<string>();
  const unlinkedBySlug = new Map<string, number>();
  for (const c of turn.completions) {
    const agent = ctx.agentsBySlug.get(c.agent);
    if (!agent) {
      noteUnknown(ctx.unknown, c.agent, "completions");
      continue;
    }
    const ev = ctx.matcher.source(agent, c, startAt);
    if (ev && linked.has(ev.id)) {
      ctx.counts.merged++;
      continue;
    }
    let eventId: string;
    if (ev) {
      linked.add(ev.id);
      ctx.counts.linked++;
      eventId = ev.id;
    } else {
      const k = (unlinkedBySlug.get(c.agent) ?? 0) + 1;
      unlinkedBySlug.set(c.agent, k);
      ctx.counts.unlinked++;
      eventId = syntheticCompletionId(turn.turnId, c.agent, k);
    }
    // Never before its turn, its event or the completion TENEX noted before it, whatever clock
    // stamped it (a seconds stamp is up to a second early).
    const at = Math.max(startAt, out.at(-1)?.at ?? 0, toMs(c.timestamp ?? turn.timestamp), ev ? ctx.eventAt.get(ev.id) ?? 0 : 0);
    out.push({ t: "completion", at, turnId: turn.turnId, eventId, agent, message: c.message });
  }
  return out;
}

/** The turns tenexd keeps: known agents only, END left out (counted), duplicates dropped. */
function keptTurns(turns: readonly PhasedTurn[], ctx: TurnContext, warn: (m: string) => void): PhasedTurn[] {
  const seen = new Set<string>();
  const out: PhasedTurn[] = [];
  for (const turn of turns) {
    if (seen.has(turn.turnId)) {
      warn(`duplicate turn ${turn.turnId} skipped`);
      continue;
    }
    seen.add(turn.turnId);
    if (turn.agents.includes(END_AGENT)) ctx.tally.ends++;
    const agents = turn.agents.filter((slug) => slug !== END_AGENT);
    for (const slug of agents) if (!ctx.agentsBySlug.has(slug)) noteUnknown(ctx.unknown, slug, "turns");
    const known = agents.filter((slug) => ctx.agentsBySlug.has(slug));
    // An END turn still ends the one before it: kept with no agents, it opens nothing.
    if (known.length > 0 || agents.length === 0) out.push({ ...turn, agents: known });
    else ctx.tally.skipped++;
  }
  return out;
}

/**
 * Records for every turn, in turn order. A completed turn ends at its last completion; an
 * unfinished one followed by another is cancelled when the next starts (tenexd keeps at most
 * one turn open, the last), or by the END that follows it; an unfinished last turn stays open.
 */
export function turnRecords(turns: readonly PhasedTurn[], ctx: TurnContext, warn: (m: string) => void): TurnDecision[] {
  const kept = keptTurns(turns, ctx, warn);
  const out: TurnDecision[] = [];
  kept.forEach((turn, i) => {
    if (turn.agents.length === 0) return;
    const startAt = toMs(turn.timestamp);
    out.push({
      t: "turn_start", at: startAt, turnId: turn.turnId, phase: turn.phase,
      agents: [...new Set(turn.agents.map((s) => ctx.agentsBySlug.get(s)!))], reason: turn.reason ?? "",
    });
    const done = completions(turn, startAt, ctx);
    out.push(...done);
    const lastAt = Math.max(startAt, ...done.map((c) => c.at));
    const next = kept[i + 1];
    if (turn.isCompleted) {
      out.push({ t: "turn_end", at: lastAt, turnId: turn.turnId, status: "completed", reason: "all agents completed" });
    } else if (next) {
      const reason = next.agents.length === 0
        ? `ended by END in TENEX${next.reason ? `: ${next.reason}` : ""}`
        : `superseded by ${next.turnId}`;
      out.push({ t: "turn_end", at: Math.max(lastAt, toMs(next.timestamp)), turnId: turn.turnId, status: "cancelled", reason });
    }
  });
  return out;
}
