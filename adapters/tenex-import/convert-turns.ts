// TENEX orchestrator turns → turn_start / completion / turn_end records.
//
// A tenexd completion is keyed by the id of its `tool=complete` event. TENEX kept only
// {agent, message, timestamp}, so the event is looked up in the history: an unused
// `tool=complete` event by that agent with the same content, else the first unused one it
// published since the turn started. When none exists (TENEX also recorded completions that
// never became events), the key is synthetic and deterministic: `import:<turnId>:<slug>`,
// so importing the same source twice yields the same records.

import type { CompletionRecord } from "../../src/records.js";
import { isCompletion } from "../../src/tags.js";
import type { TurnDecision } from "../../src/turns.js";
import type { NostrEvent } from "../../src/types.js";
import type { PhasedTurn } from "./parse-conversation.js";
import { toMs } from "./time.js";

type Draft<R> = Omit<R, "n">;

export const syntheticCompletionId = (turnId: string, slug: string) => `import:${turnId}:${slug}`;

/** Finds the `tool=complete` event behind a completion; each event backs one completion only. */
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

  match(agent: string, message: string, sinceMs: number): string | undefined {
    const free = (this.byAgent.get(agent) ?? []).filter((ev) => !this.used.has(ev.id));
    // Event times have second resolution, turn times millisecond: compare in whole seconds.
    const found = free.find((ev) => ev.content === message)
      ?? free.find((ev) => ev.created_at >= Math.floor(sinceMs / 1000));
    if (found) this.used.add(found.id);
    return found?.id;
  }
}

interface TurnContext {
  agentsBySlug: ReadonlyMap<string, string>;
  matcher: CompletionMatcher;
  warn: (message: string) => void;
}

function completions(turn: PhasedTurn, startAt: number, ctx: TurnContext): Draft<CompletionRecord>[] {
  const out: Draft<CompletionRecord>[] = [];
  for (const c of turn.completions) {
    const agent = ctx.agentsBySlug.get(c.agent);
    if (!agent) {
      ctx.warn(`completion by unknown agent "${c.agent}" in turn ${turn.turnId} skipped`);
      continue;
    }
    // A completion cannot precede its turn in the log, whatever clock stamped it.
    const at = Math.max(startAt, toMs(c.timestamp ?? turn.timestamp));
    const eventId = ctx.matcher.match(agent, c.message, startAt) ?? syntheticCompletionId(turn.turnId, c.agent);
    out.push({ t: "completion", at, turnId: turn.turnId, eventId, agent, message: c.message });
  }
  return out;
}

/**
 * Records for every turn, in turn order. A completed turn ends at its last completion; an
 * unfinished one followed by another is cancelled when the next starts (tenexd keeps at most
 * one turn open, the last); an unfinished last turn stays open.
 */
export function turnRecords(turns: readonly PhasedTurn[], ctx: TurnContext): TurnDecision[] {
  const kept = turns.filter((turn, i) => {
    if (turns.findIndex((t) => t.turnId === turn.turnId) !== i) {
      ctx.warn(`duplicate turn ${turn.turnId} skipped`);
      return false;
    }
    for (const slug of turn.agents) {
      if (!ctx.agentsBySlug.has(slug)) ctx.warn(`unknown agent "${slug}" left out of turn ${turn.turnId}`);
    }
    if (turn.agents.some((slug) => ctx.agentsBySlug.has(slug))) return true;
    ctx.warn(`turn ${turn.turnId} skipped: none of its agents is known`);
    return false;
  });
  const out: TurnDecision[] = [];
  kept.forEach((turn, i) => {
    const known = turn.agents.filter((slug) => ctx.agentsBySlug.has(slug));
    const startAt = toMs(turn.timestamp);
    out.push({
      t: "turn_start", at: startAt, turnId: turn.turnId, phase: turn.phase,
      agents: [...new Set(known.map((s) => ctx.agentsBySlug.get(s)!))], reason: turn.reason ?? "",
    });
    const done = completions(turn, startAt, ctx);
    out.push(...done);
    const lastAt = Math.max(startAt, ...done.map((c) => c.at));
    const next = kept[i + 1];
    if (turn.isCompleted) {
      out.push({ t: "turn_end", at: lastAt, turnId: turn.turnId, status: "completed", reason: "all agents completed" });
    } else if (next) {
      out.push({
        t: "turn_end", at: Math.max(lastAt, toMs(next.timestamp)), turnId: turn.turnId, status: "cancelled",
        reason: `superseded by ${next.turnId}`,
      });
    }
  });
  return out;
}
